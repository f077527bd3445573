package load

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"strconv"
	"sync"

	"github.com/platc/platc/internal/cache"
	"github.com/platc/platc/schemas"
)

// fitFormat names what a fit entry means, and what checks a spec: change
// it whenever checkSchema decides otherwise.
const fitFormat = "platc schema fit 1"

// fitDigest is the digest of everything the schema check of the files
// names (with their bytes sources) of the spec folder dir reads: the
// schema, the CUE module that evaluates it, the folder, and each file's
// name and bytes. The check's verdict is a function of these alone.
func fitDigest(dir string, names []string, sources [][]byte) string {
	h := sha256.New()
	field := func(s []byte) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write(s)
	}
	field([]byte(fitFormat))
	field([]byte(cueVersion()))
	field(schemas.PlatformCUE)
	field([]byte(dir))
	for i, name := range names {
		field([]byte(name))
		field(sources[i])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fitKey is the cache key of the entry of a digest: printable, safe as a
// file name.
func fitKey(digest string) string { return "schema-fit-" + digest[:32] }

// cachedFit says whether cache records that the spec of digest fits the
// schema. An entry holds the whole digest, so one found under another
// spec's key (a cache folder copied or mixed up) is not taken for it.
func cachedFit(cache cache.Cache, digest string) bool {
	data, ok := cache.Get(fitKey(digest))
	return ok && string(data) == fitFormat+"\n"+digest
}

// storeFit records that the spec of digest fits the schema. Only a fit is
// kept: a spec with problems is checked again, and reports them again.
func storeFit(cache cache.Cache, digest string) {
	cache.Put(fitKey(digest), []byte(fitFormat+"\n"+digest))
}

// cueVersion is the version of the CUE module linked into this binary,
// which evaluates the check; "unknown" where the build does not say (then
// the cache's own binding to the binary that wrote an entry, as the CLI's
// has, is what keeps entries apart).
var cueVersion = sync.OnceValue(func() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "cuelang.org/go" {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Path + "@" + d.Version + " " + d.Sum
			}
		}
	}
	return "unknown"
})
