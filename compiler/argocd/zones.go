package argocd

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// zoneinfo is Go's copy of the IANA time zone database, the one the
// time/tzdata package embeds (go generate copies it from the toolchain
// that runs it); Argo CD's image has the same database from its
// distribution's tzdata package. platc reads time zones from it alone:
// time.LoadLocation prefers $ZONEINFO and the host's /usr/share/zoneinfo,
// an input that no cache key records and that differs between a laptop,
// a CI runner and a container.
//
//go:generate sh -c "cp \"$(go env GOROOT)/lib/time/zoneinfo.zip\" zoneinfo.zip && chmod 644 zoneinfo.zip"
//go:embed zoneinfo.zip
var zoneinfo []byte

// zones are the files of zoneinfo, by zone name, read once.
var zones = sync.OnceValues(func() (map[string]*zip.File, error) {
	r, err := zip.NewReader(bytes.NewReader(zoneinfo), int64(len(zoneinfo)))
	if err != nil {
		return nil, err
	}
	files := make(map[string]*zip.File, len(r.File))
	for _, f := range r.File {
		files[f.Name] = f
	}
	return files, nil
})

// LoadZone is time.LoadLocation reading zoneinfo instead of the host:
// "" and "UTC" are UTC, "Local" is the machine's zone, and any other
// name must be one of the database's, with time.LoadLocation's message
// where it is not.
func LoadZone(name string) (*time.Location, error) {
	switch name {
	case "", "UTC":
		return time.UTC, nil
	case "Local":
		return time.Local, nil
	}
	files, err := zones()
	if err != nil {
		return nil, fmt.Errorf("platc's time zone database: %w", err)
	}
	f, ok := files[name]
	if !ok {
		return nil, errors.New("unknown time zone " + name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	return time.LoadLocationFromTZData(name, data)
}
