// Package browser opens the page platc report writes in a real browser:
// headless Chromium, run as a person's browser would be, from its command
// line (no DevTools client, so that the module needs nothing but Go). It
// is a module of its own, run by make browser, and not by make test: it
// needs Chromium, which Go does not bring. Without Chromium its tests are
// skipped, saying so.
//
// The page is the sample platform's, made by platc itself (go run
// ./cmd/platc report, in the repository's root). The test loads it and
// requires that the browser logs nothing on its console, that the page as
// the browser parsed it (--dump-dom) has a row and a node of its picture
// for every module and a column for every environment, that it prints to
// PDF, and keeps a screenshot: .out/report.png (make report-screenshot
// copies it to docs/report.png).
package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// outDir keeps what the tests make: the page, its screenshot and its
// PDF (gitignored).
const outDir = ".out"

// Screenshot is the size of the window the screenshot is taken in.
const screenshotSize = "1280,2300"

// chromium returns the Chromium to run: $CHROMIUM, or the first of
// Debian's and others' names on PATH; the test is skipped without one.
func chromium(t *testing.T) string {
	t.Helper()
	if c := os.Getenv("CHROMIUM"); c != "" {
		return c
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (apt-get install chromium, or set CHROMIUM): the page is opened in a browser only where one is installed")
	return ""
}

// run runs Chromium headless on url with args, and returns its stdout and
// the console lines of its log.
func run(t *testing.T, browser, url string, args ...string) (stdout string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		// The console's messages go to stderr, as CONSOLE lines.
		"--enable-logging=stderr", "--v=0",
		// A profile of its own, so that runs never share state.
		"--user-data-dir=" + t.TempDir(),
	}, args...)
	cmd := exec.CommandContext(ctx, browser, append(all, url)...)
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, errs.String())
	}
	for _, l := range strings.Split(errs.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") || strings.Contains(l, "Uncaught") {
			console = append(console, l)
		}
	}
	return out.String(), console
}

// platc runs platc of the repository around this module with args, in
// the repository's root.
func platc(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"run", "./cmd/platc"}, args...)...)
	cmd.Dir = ".."
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("platc %s: %v\n%s", strings.Join(args, " "), err, errs.String())
	}
	return out.String()
}

func TestReportInChromium(t *testing.T) {
	browser := chromium(t)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(out, "report.html")
	shot := filepath.Join(out, "report.png")
	pdf := filepath.Join(out, "report.pdf")
	for _, f := range []string{page, shot, pdf} {
		os.Remove(f) // never judge what an earlier run left
	}
	platc(t, "report", "-o", page)
	url := "file://" + page

	dom, console := run(t, browser, url, "--dump-dom")
	if len(console) > 0 {
		t.Errorf("the browser's console says:\n%s", strings.Join(console, "\n"))
	}
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("--dump-dom printed no page:\n%s", dom)
	}

	// What the page must show, from platc's other views of the same
	// spec: the modules of its graph, the environments of its versions.
	modules := regexp.MustCompile(`(?m)^\s*"([a-z0-9-]+)" \[label=`).FindAllStringSubmatch(platc(t, "graph", "-format", "dot"), -1)
	if len(modules) < 10 {
		t.Fatalf("platc graph lists %d modules", len(modules))
	}
	envs := regexp.MustCompile(`"name": "([a-z0-9-]+)",\s*"revision"`).FindAllStringSubmatch(platc(t, "versions", "-format", "json"), -1)
	if len(envs) < 2 {
		t.Fatalf("platc versions lists %d environments", len(envs))
	}
	rows := attrs(dom, `<tr data-module="([^"]+)"`)
	nodes := attrs(dom, `<g class="node [a-z]+" data-module="([^"]+)"`)
	columns := attrs(dom, `<th data-env="([^"]+)"`)
	var wantModules, wantEnvs []string
	for _, m := range modules {
		wantModules = append(wantModules, m[1])
	}
	for _, e := range envs {
		wantEnvs = append(wantEnvs, e[1])
	}
	slices.Sort(wantModules)
	slices.Sort(wantEnvs)
	for what, got := range map[string][]string{"matrix rows": rows, "picture's nodes": nodes} {
		if !slices.Equal(got, wantModules) {
			t.Errorf("the page's %s are %v, want one per module: %v", what, got, wantModules)
		}
	}
	if !slices.Equal(columns, wantEnvs) {
		t.Errorf("the matrix's columns are %v, want one per environment: %v", columns, wantEnvs)
	}

	if _, console := run(t, browser, url, "--window-size="+screenshotSize, "--screenshot="+shot); len(console) > 0 {
		t.Errorf("the browser's console says, taking the screenshot:\n%s", strings.Join(console, "\n"))
	}
	checkScreenshot(t, shot)

	run(t, browser, url, "--no-pdf-header-footer", "--print-to-pdf="+pdf)
	data, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatalf("printing the page: %v", err)
	}
	if pages := regexp.MustCompile(`/Type\s*/Page\b`).FindAll(data, -1); !bytes.HasPrefix(data, []byte("%PDF-")) || len(pages) == 0 {
		t.Errorf("printing the page made no PDF of pages (%d bytes, %d pages)", len(data), len(pages))
	}
}

// attrs returns the first group of every match of pattern in s, sorted.
func attrs(s, pattern string) []string {
	var out []string
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

// checkScreenshot requires a PNG of the window's size that is not one
// colour: the page was drawn.
func checkScreenshot(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot: %v", err)
	}
	if got := fmt.Sprintf("%d,%d", img.Bounds().Dx(), img.Bounds().Dy()); got != screenshotSize {
		t.Errorf("the screenshot is %s, want %s", got, screenshotSize)
	}
	first := img.At(0, 0)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			if img.At(x, y) != first {
				return
			}
		}
	}
	t.Errorf("the screenshot is one colour: the page was not drawn")
}

// TestConsoleIsRead makes sure a console error would be seen: a page
// whose script fails must be reported, or the check above proves
// nothing.
func TestConsoleIsRead(t *testing.T) {
	browser := chromium(t)
	page := filepath.Join(t.TempDir(), "bad.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><script>notAFunction()</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, console := run(t, browser, "file://"+page, "--dump-dom")
	if len(console) == 0 || !strings.Contains(strings.Join(console, "\n"), "Uncaught ReferenceError") {
		t.Errorf("the console's error was not read: %q", console)
	}
}
