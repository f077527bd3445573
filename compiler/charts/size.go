package charts

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
)

// maxChartSize is the most bytes a chart and its subcharts may unpack
// to, in all, a whole number of MiB: Helm's limit for one archive
// (archive.MaxDecompressedChartSize, 100 MiB), which Helm applies to each
// subchart's archive on its own, so that a handful of small subcharts can
// unpack to gigabytes.
var maxChartSize = archive.MaxDecompressedChartSize

// errChartSize is what a chart over maxChartSize is refused with.
func errChartSize() error {
	return fmt.Errorf("the chart and its subcharts unpack to more than %d MiB, platc's budget for a chart: remove what the chart does not need", maxChartSize>>20)
}

// checkArchiveSize unpacks a chart archive without keeping it, and the
// subcharts' archives it holds (charts/*.tgz, at any depth), counting
// their bytes against left. A malformed archive is left to Helm's loader
// to say what is wrong with it.
func checkArchiveSize(data []byte, left *int64) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if isSubchartArchive(h.Name) {
			b, err := io.ReadAll(io.LimitReader(tr, *left+1))
			if *left -= int64(len(b)); *left < 0 {
				return errChartSize()
			}
			if err != nil {
				return nil
			}
			if err := checkArchiveSize(b, left); err != nil {
				return err
			}
			continue
		}
		n, err := io.Copy(io.Discard, io.LimitReader(tr, *left+1))
		if *left -= n; *left < 0 {
			return errChartSize()
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil
		}
	}
}

// isSubchartArchive says whether an archive's file is a subchart's
// archive: an archive in a charts/ folder.
func isSubchartArchive(name string) bool {
	return strings.HasSuffix(name, ".tgz") && strings.Contains("/"+name, "/charts/")
}

// checkFolderSize counts the files of a chart folder, and the subcharts'
// archives among them, against maxChartSize.
func checkFolderSize(files []*archive.BufferedFile) error {
	left := maxChartSize
	for _, f := range files {
		if left -= int64(len(f.Data)); left < 0 {
			return errChartSize()
		}
	}
	for _, f := range files {
		if isSubchartArchive(f.Name) {
			if err := checkArchiveSize(f.Data, &left); err != nil {
				return err
			}
		}
	}
	return nil
}
