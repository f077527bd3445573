// Command release builds platc's release archives: platc for linux,
// darwin and windows on amd64 and arm64, each in an archive (tar.gz, zip
// for windows) with the README, and a file of their SHA-256 checksums. It
// then unpacks the archive of the machine it runs on and runs its platc,
// which must name the version built.
//
// It does what goreleaser would for platc, with the Go toolchain alone
// and offline once the modules are downloaded. The archives are the same
// bytes for the same commit: their files carry the commit's time, and
// their entries are in a fixed order.
//
//	go run ./release -snapshot                 # make release-snapshot
//	go run ./release -version v1.2.0           # a release: HEAD must be tagged v1.2.0, the tree clean
//	go run ./release -snapshot -targets linux/amd64
//
// It does not publish: the release workflow uploads dist/.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var o options
	flag.StringVar(&o.root, "C", "..", "platc's repository `folder`")
	flag.StringVar(&o.out, "o", "../dist", "the `folder` to write the archives to (emptied first)")
	flag.StringVar(&o.version, "version", "", "the release's `tag` (HEAD must carry it, the tree clean); empty with -snapshot")
	flag.BoolVar(&o.snapshot, "snapshot", false, "build a snapshot: version <last tag or v0.0.0>-snapshot.g<commit>, from any tree")
	targets := flag.String("targets", strings.Join(defaultTargets, ","), "comma-separated `GOOS/GOARCH` pairs")
	flag.Parse()
	o.targets = strings.Split(*targets, ",")
	if flag.NArg() > 0 || o.snapshot == (o.version != "") {
		fmt.Fprintln(os.Stderr, "release: give -snapshot or -version vX.Y.Z (and no arguments)")
		os.Exit(2)
	}
	if err := run(o, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}
