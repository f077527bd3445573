package charts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"maps"
	"slices"
	"time"
)

// BuildArchive packs files (paths relative to the chart's folder) into a
// chart archive, as `helm package` lays it out: every file below a folder
// named after the chart. The same files give the same bytes (sorted, no
// time), so that generated charts (tests, benchmarks) have a fixed digest.
func BuildArchive(chartName string, files map[string][]byte) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		hdr := &tar.Header{Name: chartName + "/" + name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			panic(err) // a bytes.Buffer does not fail
		}
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}
