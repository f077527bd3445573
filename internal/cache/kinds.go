package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// A Kind is a kind of entry platc keeps between runs, declared only as a
// row of Kinds. Entries use object's binary form after the layout line
// (Layout): object.Entry's encoding of the Go type, except entries every
// warm run reads at length (the spec's reading, chart outcomes and their
// pack, schema verdicts), hand-written on the same Encoder, and chart
// indexes, kept as fetched. Chart archives (platc charts pull) are no
// kind: a store by digest, never recomputed.
type Kind struct {
	// Name starts the key of every entry, and names the layout.
	Name string
	// Version of the layout: bump it whenever an entry's bytes or their
	// meaning change; other versions are misses.
	Version int
	// From says what an entry's key is a digest of (Key's parts), and
	// what the entry holds to tell its own inputs from another's.
	From string
	// Codec names the functions that write and read an entry, as
	// package.Func or package.Type.Method (a test holds them true).
	Codec []string
}

// The kinds of entry, one row each.
var (
	SpecReading = &Kind{"spec-reading", 2,
		"the spec folder; the entry holds the digest of the spec's files and names, the folder, the schema and CUE's version, and is kept only for a spec that fits the schema",
		[]string{"load.storeReading", "load.cachedReading"}}
	KroCheck = &Kind{"kro-check", 5,
		"kro's version, the CRDs of the resources' kinds, the built-in schemas, the feature gates and the RGD",
		[]string{"kro.encodeCheckEntry", "kro.decodeCheckEntry"}}
	KroInstance = &Kind{"kro-instance", 5,
		"the kro-check key of the stack's RGD and the instance's spec",
		[]string{"kro.encodeInstanceEntry", "kro.decodeInstanceEntry"}}
	KroOverSchema = &Kind{"kro-over-schema", 3,
		"the kro-check key of the stack's RGD and the schema the instance is checked over",
		[]string{"kro.encodeOverSchema", "kro.decodeOverSchema"}}
	CELParses = &Kind{"cel-parses", 3,
		"kro's version (one entry: every CEL expression parsed, by source)",
		[]string{"kro.Parses.Write", "kro.Parses.Read"}}
	RGDPreview = &Kind{"rgd-preview", 3,
		"the kro-check key of the stack's RGD and the instance's schema variable",
		[]string{"rgd.Compiled.putPreview", "rgd.Compiled.cachedPreviewOf"}}
	SchemaVerdicts = &Kind{"schema-verdicts", 4,
		"the Kubernetes modules platc links and the embedded CRDs (one entry: the verdict on each shape of object)",
		[]string{"validate.Memo.Write", "validate.Memo.Read"}}
	Manifests = &Kind{"manifests", 8,
		"the folder kustomize builds; the entry holds the folder and what the build read, each checked again",
		[]string{"manifests.encodeEntry", "manifests.decodeEntry"}}
	ChartRender = &Kind{"chart-render", 8,
		"Helm's version, the chart's digest and the request's; the entry starts with the same",
		[]string{"charts.appendOutcome", "charts.readOutcome"}}
	ChartRenders = &Kind{"chart-renders", 2,
		"nothing (one entry: the chart-render entries the last compilation read, by key)",
		[]string{"charts.Renderer.KeepPack", "charts.Renderer.readPack"}}
	ChartIndex = &Kind{"chart-index", 2,
		"a chart repository's index URL (platc outdated's own folder); the entry holds the URL, when it was read and a digest of the index, kept as fetched",
		[]string{"cli.chartRepos.keep", "cli.chartRepos.kept"}}
)

// Kinds is every kind of entry.
var Kinds = []*Kind{SpecReading, KroCheck, KroInstance, KroOverSchema, CELParses, RGDPreview, SchemaVerdicts, Manifests, ChartRender, ChartRenders, ChartIndex}

// Layout is the first line of every entry of the kind: its name and
// version.
func (k *Kind) Layout() string {
	return "platc " + k.Name + " " + strconv.Itoa(k.Version) + "\n"
}

// Key is the key of the kind's entry for parts: the kind's name, then a
// digest of its layout and each length-prefixed part. It is safe as a
// file name.
func (k *Kind) Key(parts ...string) string {
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field(k.Layout())
	for _, p := range parts {
		field(p)
	}
	return k.Name + "-" + hex.EncodeToString(h.Sum(nil)[:16])
}
