package argocd

import (
	"archive/zip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestLoadZone(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"", ""},
		{"UTC", ""},
		{"Local", ""},
		{"Europe/Berlin", ""},
		{"America/Argentina/Buenos_Aires", ""},
		{"Europe/Berlinn", "unknown time zone Europe/Berlinn"},
		{"../../etc/passwd", "unknown time zone ../../etc/passwd"},
		{"/etc/localtime", "unknown time zone /etc/localtime"},
	} {
		_, err := LoadZone(tc.name)
		if got := errString(err); got != tc.want {
			t.Errorf("LoadZone(%q): %q, want %q", tc.name, got, tc.want)
		}
	}
	loc, err := LoadZone("Asia/Kolkata")
	if err != nil || loc.String() != "Asia/Kolkata" {
		t.Fatalf("LoadZone(Asia/Kolkata) = %v, %v", loc, err)
	}
}

func TestParseScheduleTimeZone(t *testing.T) {
	for _, tc := range []struct{ schedule, want string }{
		{"TZ=Europe/Berlin 0 22 * * *", ""},
		{"CRON_TZ=Asia/Tokyo 0 22 * * *", ""},
		{"TZ=Mars/Olympus 0 22 * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"},
		{"TZ=Europe/Berlin", "Argo CD's cron parser crashes on 'TZ=Europe/Berlin'"},
		{"TZ=Europe/Berlin ", "expected exactly 5 fields, found 0: []"},
		{"TZ=UTC TZ=Europe/Berlin 0 22 * * *", "expected exactly 5 fields, found 6: [TZ=Europe/Berlin 0 22 * * *]"},
	} {
		_, err := ParseSchedule(tc.schedule)
		if got := errString(err); got != tc.want {
			t.Errorf("ParseSchedule(%q): %q, want %q", tc.schedule, got, tc.want)
		}
	}
}

// TestZonesIgnoreTheHost runs the test binary again with $ZONEINFO naming
// a database that has a zone Go's has not, and one that lacks
// Europe/Berlin: platc's verdicts are the same.
func TestZonesIgnoreTheHost(t *testing.T) {
	if os.Getenv("PLATC_ZONES_CHILD") != "" {
		if msg := (SyncWindow{TimeZone: "Platc/Host"}).TimeZoneProblem(); msg == "" {
			t.Error("a zone only the host's database has was accepted")
		}
		if msg := (SyncWindow{TimeZone: "Europe/Berlin"}).TimeZoneProblem(); msg != "" {
			t.Errorf("Europe/Berlin, which the host's database lacks: %s", msg)
		}
		if _, err := ParseSchedule("TZ=Platc/Host 0 22 * * *"); err == nil {
			t.Error("a schedule in a zone only the host's database has was accepted")
		}
		return
	}
	// The host's database: one zone, Go's UTC under another name.
	files, err := zones()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := files["Etc/UTC"].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	path := filepath.Join(t.TempDir(), "zoneinfo.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "Platc/Host", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestZonesIgnoreTheHost$", "-test.v")
	cmd.Env = append(os.Environ(), "PLATC_ZONES_CHILD=1", "ZONEINFO="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
}
