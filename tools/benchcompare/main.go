// Command benchcompare measures platc against the pure-CUE way, on the same
// generated input, in one run (make bench-compare):
//
//	(a) cue export of the input spec alone: what evaluating the spec costs;
//	(b) the same Applications produced with CUE comprehensions and exported
//	    by cue export, as users of CUE-based tools do;
//	(c) platc render.
//
// and beside them, in the same rounds: platc render into an empty folder
// (fresh), with no cache (PLATC_CACHE=off, a CI runner's first check), and
// (a) and (c) again for the same platform written as a CUE user writes it
// (synth.Idiomatic: tables, comprehensions, pattern constraints,
// references), and cp -r of the rendered folder followed by sync -f (the
// floor of a first render's writes: the same files, made durable, not
// computed), with the targets of the performance issue (issue 25). The
// folders a fresh render and the copy replace are moved aside, not
// removed, until the rounds end: a removal's work and a copy's unsynced
// writes would otherwise fall on the next command, whose sync waits for
// them.
//
// and, on the same platform with its charts locked and vendored
// (synth.PlatformWithCharts), platc vet rendering every chart: cold (an
// empty cache: every distinct render done) and warm (every outcome from
// platc's cache), against platc vet of the platform without charts.
//
// It builds platc and the cue command of the version in go.mod, times each
// command over repeated runs (median wall time, peak resident memory), checks
// that (b) yields exactly the Applications platc renders, and prints the
// table and the ratios. It is a developer's tool, not part of platc.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/testkit/synth"
)

var (
	runs     = flag.Int("runs", 5, "runs of each command; the median is reported")
	sizes    = flag.String("sizes", "sample,50x200x20,100x500x40", "comma-separated sizes: sample, or one of testkit/synth's")
	skipPure = flag.String("skip-pure", "100x500x40", "sizes at which (b) is not run (it is the slow one)")
)

type measure struct {
	wall time.Duration
	rss  int64 // KiB
}

func main() {
	if os.Getenv(runnerEnv) == "1" {
		runRequests()
		return
	}
	root := flag.String("C", "..", "platc's repository `folder` (the default is tools/'s parent)")
	flag.Parse()
	// It builds ./cmd/platc, cue at go.mod's version, and copies the
	// sample, from the repository's root.
	check(os.Chdir(*root))
	startRunner()
	tmp, err := os.MkdirTemp("", "platc-bench-")
	check(err)
	defer os.RemoveAll(tmp)
	// platc keeps kustomize's outcomes in a cache between runs, as a
	// pre-commit hook or make render meets it after the first run: here
	// in a folder of this run's, which the first round fills.
	check(os.Setenv("PLATC_CACHE", filepath.Join(tmp, "cache")))
	platc := filepath.Join(tmp, "platc")
	cue := filepath.Join(tmp, "cue")
	run("go", "build", "-o", platc, "./cmd/platc")
	run("go", "build", "-o", cue, "cuelang.org/go/cmd/cue")
	fmt.Printf("machine: %s/%s, %d cores; %d runs each, median wall time and peak memory\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *runs)

	type row struct {
		size                string
		apps                int
		a, b, c, fresh, vet measure
		cold                measure // (c) with no cache
		copy                measure // cp -r of the rendered out/, and sync -f
		idiomA, idiomC      measure // (a) and (c) of the idiomatic spelling
		idiomCold           measure
		hasIdiom            bool
		hasB                bool
		chartsCold          measure
		chartsWarm          measure
		chartsVet           measure // vet without charts, in the rounds of chartsCold and chartsWarm
		hasCharts           bool
		check               measure
		start               measure // platc version: the process's start
		cueStart            measure // cue version: cue's
		equivalent          string
	}
	var rows []row
	for _, size := range strings.Split(*sizes, ",") {
		dir := filepath.Join(tmp, size)
		r := row{size: size}
		if size == "sample" {
			for _, top := range []string{"sources", "clients"} {
				copyTree(top, filepath.Join(dir, top))
			}
		} else {
			s, ok := synth.Sizes[size]
			if !ok {
				fail("unknown size %q", size)
			}
			for name, f := range synth.Platform(s) {
				write(filepath.Join(dir, name), f.Data)
			}
			pure := filepath.Join(dir, "pure")
			data, err := os.ReadFile(filepath.Join(dir, "sources", "platform.cue"))
			check(err)
			write(filepath.Join(pure, "platform.cue"), data)
			write(filepath.Join(pure, "pure.cue"), []byte(synth.PureCUE()))
		}
		out := filepath.Join(dir, "out")
		runIn(dir, platc, "render") // the output folder exists, as it does day to day
		fmt.Fprintf(os.Stderr, "%s: (a) cue export, (c) platc render, a fresh render, platc vet, with no cache, in %d interleaved rounds\n", size, *runs)
		off := []string{"PLATC_CACHE=off"}
		copied := filepath.Join(tmp, size+"-copy")
		moveAside := func(p string) func() {
			return func() {
				to, err := os.MkdirTemp(tmp, "aside-")
				check(err)
				err = os.Rename(p, filepath.Join(to, filepath.Base(p)))
				if !errors.Is(err, fs.ErrNotExist) {
					check(err)
				}
			}
		}
		cmds := []*command{
			{name: "(a)", args: []string{cue, "export", "./sources", "--out", "json"}, into: &r.a},
			{name: "(c)", args: []string{platc, "render"}, into: &r.c},
			{name: "fresh", args: []string{platc, "render"}, setup: moveAside(out), into: &r.fresh},
			{name: "vet", args: []string{platc, "vet"}, into: &r.vet},
			{name: "cold", args: []string{platc, "render"}, env: off, into: &r.cold},
			// The floor of a first render's writes: the same files
			// copied by cp(1) and made durable, not computed.
			{name: "copy", args: []string{"sh", "-c", `cp -r "$0" "$1" && sync -f "$1"`, out, copied}, setup: moveAside(copied), into: &r.copy},
		}
		idiomDir := filepath.Join(tmp, size+"-idiomatic")
		if size != "sample" {
			for name, f := range synth.Idiomatic(synth.Sizes[size]) {
				write(filepath.Join(idiomDir, name), f.Data)
			}
			runIn(idiomDir, platc, "render")
			cmds = append(cmds,
				&command{name: "(a) idiomatic", args: []string{cue, "export", "./sources", "--out", "json"}, dir: idiomDir, into: &r.idiomA},
				&command{name: "(c) idiomatic", args: []string{platc, "render"}, dir: idiomDir, into: &r.idiomC},
				&command{name: "cold idiomatic", args: []string{platc, "render"}, dir: idiomDir, env: off, into: &r.idiomCold})
			r.hasIdiom = true
		}
		if size == "sample" {
			// platc check compiles, every cache warm, as a person's check
			// after an edit does. platc version is the process's start
			// alone: what every command pays before its work
			// (docs/performance.md); cue version is cue's, which every
			// (a) pays.
			cmds = append(cmds,
				&command{name: "check", args: []string{platc, "check"}, into: &r.check},
				&command{name: "version", args: []string{platc, "version"}, into: &r.start},
				&command{name: "cue version", args: []string{cue, "version"}, into: &r.cueStart})
		}
		rounds(dir, cmds)
		for _, c := range cmds {
			*c.into = c.median()
		}
		if r.hasIdiom {
			if a, b := readTree(filepath.Join(idiomDir, "out")), readTree(out); !maps.Equal(a, b) {
				fail("%s: the idiomatic spec renders other files than the generated one", size)
			}
		}
		var rendered map[string]any
		rendered, r.apps = renderedApps(out)
		if size != "sample" && !slices.Contains(strings.Split(*skipPure, ","), size) {
			fmt.Fprintf(os.Stderr, "%s: (b) the pure-CUE way, %d runs\n", size, *runs)
			b := &command{name: "(b)", args: []string{cue, "export", "./pure", "-e", "applications", "--out", "json"}}
			rounds(dir, []*command{b})
			r.b, r.hasB = b.median(), true
			r.equivalent = equivalent(b.lastOut, rendered)
		}
		if size != "sample" {
			// The same platform with its charts locked and vendored.
			withCharts := filepath.Join(tmp, size+"-charts")
			for name, f := range synth.PlatformWithCharts(synth.Sizes[size]) {
				write(filepath.Join(withCharts, name), f.Data)
			}
			coldCache, warmCache := filepath.Join(tmp, "cold-cache"), filepath.Join(tmp, "warm-cache")
			vetIn := func(cache string) func() {
				return func() { check(os.Setenv("PLATC_CACHE", cache)) }
			}
			runIn(withCharts, "env", "PLATC_CACHE="+warmCache, platc, "vet")
			fmt.Fprintf(os.Stderr, "%s: platc vet rendering every chart, cold and warm cache, %d rounds\n", size, *runs)
			cold := &command{name: "charts cold", args: []string{platc, "vet"}, setup: func() { check(os.RemoveAll(coldCache)); vetIn(coldCache)() }}
			warm := &command{name: "charts warm", args: []string{platc, "vet"}, setup: vetIn(warmCache)}
			// The divisor, vet without charts, in the same rounds: the
			// ratio is of runs made side by side.
			plain := &command{name: "vet", args: []string{platc, "vet"}, dir: dir, setup: vetIn(filepath.Join(tmp, "cache"))}
			rounds(withCharts, []*command{cold, warm, plain})
			check(os.Setenv("PLATC_CACHE", filepath.Join(tmp, "cache")))
			r.chartsCold, r.chartsWarm, r.chartsVet, r.hasCharts = cold.median(), warm.median(), plain.median(), true
		}
		rows = append(rows, r)
	}

	fmt.Println("(a) cue export of the spec alone; (b) the same Applications the pure-CUE way (CUE comprehensions, cue export);")
	fmt.Println("(c) platc render with its output folder up to date (it reads, checks and compares every file, and writes none);")
	fmt.Println("fresh: platc render into an empty folder (writes every file); vet: platc vet (every check, no output folder);")
	fmt.Println("cold: (c) with no cache (PLATC_CACHE=off); idiomatic: the same platform written with tables, comprehensions,")
	fmt.Println("pattern constraints and references (synth.Idiomatic), its own (a), (c) and cold")
	fmt.Println()
	fmt.Printf("%-11s %6s  %-15s %-15s %-15s %-15s %-15s %-15s %7s %7s\n", "size", "apps", "(a) cue export", "(b) pure CUE", "(c) render", "fresh render", "vet", "cold", "(c)/(a)", "(b)/(c)")
	for _, r := range rows {
		b, bc := "-", "-"
		if r.hasB {
			b, bc = r.b.String(), fmt.Sprintf("%.1f", r.b.wall.Seconds()/r.c.wall.Seconds())
		}
		fmt.Printf("%-11s %6d  %-15s %-15s %-15s %-15s %-15s %-15s %7.2f %7s\n", r.size, r.apps, r.a, b, r.c, r.fresh, r.vet, r.cold, r.c.wall.Seconds()/r.a.wall.Seconds(), bc)
		if r.hasIdiom {
			fmt.Printf("%-11s %6s  %-15s %-15s %-15s %-15s %-15s %-15s %7.2f %7s\n", "  idiomatic", "", r.idiomA, "-", r.idiomC, "-", "-", r.idiomCold, r.idiomC.wall.Seconds()/r.idiomA.wall.Seconds(), "-")
		}
	}
	fmt.Println()
	byName := map[string]row{}
	for _, r := range rows {
		byName[r.size] = r
		if r.equivalent != "" {
			fmt.Printf("%s: (b) and (c) %s\n", r.size, r.equivalent)
		}
		if r.size == "sample" {
			fmt.Printf("sample: platc check %s, %.2f x (a); the start of the process (platc version) %.3fs, %.2f x (a); cue version %.3fs\n",
				r.check, r.check.wall.Seconds()/r.a.wall.Seconds(),
				r.start.wall.Seconds(), r.start.wall.Seconds()/r.a.wall.Seconds(), r.cueStart.wall.Seconds())
		}
		if r.hasCharts {
			fmt.Printf("%s: platc vet rendering every chart: cold %s (%.2f x vet), warm %s (%.2f x vet without charts, %s in the same rounds; target <= 1.3)\n",
				r.size, r.chartsCold, r.chartsCold.wall.Seconds()/r.chartsVet.wall.Seconds(), r.chartsWarm, r.chartsWarm.wall.Seconds()/r.chartsVet.wall.Seconds(), r.chartsVet)
		}
	}
	if small, ok := byName["50x200x20"]; ok {
		bc := "not run"
		if small.hasB {
			bc = fmt.Sprintf("%.1f", small.b.wall.Seconds()/small.c.wall.Seconds())
		}
		fmt.Printf("50x200x20: (b)/(c) = %s (target >= 10), (c)/(a) = %.2f (target <= 2), peak memory of (c) %d MB (target <= 300)\n",
			bc, small.c.wall.Seconds()/small.a.wall.Seconds(), small.c.rss/1024)
		if big, ok := byName["100x500x40"]; ok {
			fmt.Printf("100x500x40 / 50x200x20: %.2f x the time (target <= 5.5) for %.1f x the Applications\n",
				big.c.wall.Seconds()/small.c.wall.Seconds(), float64(big.apps)/float64(small.apps))
		}
		sec := func(m measure) float64 { return m.wall.Seconds() }
		fmt.Println()
		fmt.Println("issue 25's targets, at 50x200x20:")
		fmt.Printf("  up-to-date render / cue export: %.2f plain, %.2f idiomatic (target <= 1.5)\n", sec(small.c)/sec(small.a), sec(small.idiomC)/sec(small.idiomA))
		if sample, ok := byName["sample"]; ok {
			// What platc's start costs beyond cue's is the package
			// initialization of the libraries it links (kro's,
			// Kubernetes', Helm's), paid before any work: the ratio
			// without it shows how much of the rest is platc's own.
			d := sec(sample.start) - sec(sample.cueStart)
			fmt.Printf("    platc starts %.3fs later than cue (platc version %.3fs, cue version %.3fs); less that: %.2f plain, %.2f idiomatic\n",
				d, sec(sample.start), sec(sample.cueStart), (sec(small.c)-d)/sec(small.a), (sec(small.idiomC)-d)/sec(small.idiomA))
		}
		fmt.Printf("  no cache / cue export: %.2f plain, %.2f idiomatic (target <= 2)\n", sec(small.cold)/sec(small.a), sec(small.idiomCold)/sec(small.idiomA))
		fmt.Printf("  fresh render / up-to-date render: %.2f (target <= 2); cp -r and sync -f of out/ alone %.3fs, %.2f x the up-to-date render;\n", sec(small.fresh)/sec(small.c), sec(small.copy), sec(small.copy)/sec(small.c))
		fmt.Printf("    fresh render / (up-to-date render + cp -r and sync -f): %.2f\n", sec(small.fresh)/(sec(small.c)+sec(small.copy)))
		if big, ok := byName["100x500x40"]; ok {
			fmt.Printf("  peak memory at 100x500x40: %d MB up to date, %d MB fresh, %d MB with no cache (target <= 300)\n", big.c.rss/1024, big.fresh.rss/1024, big.cold.rss/1024)
		}
	}
	for _, r := range rows {
		if r.equivalent != "" && !strings.HasPrefix(r.equivalent, "yield the same") {
			os.Exit(1)
		}
	}
}

// command is one measured command and its runs.
type command struct {
	name    string
	args    []string
	dir     string   // where it runs, if not in the rounds' folder
	setup   func()   // before each run, not timed
	env     []string // set for it, beside the environment
	into    *measure // where the rounds' median goes, for the main rounds
	runs    []measure
	lastOut []byte
}

// rounds runs each command once per round, *runs rounds, so that a
// machine's drift over the run touches every command alike.
func rounds(dir string, cmds []*command) {
	for range *runs {
		for _, c := range cmds {
			if c.setup != nil {
				c.setup()
			}
			in := dir
			if c.dir != "" {
				in = c.dir
			}
			var m measure
			c.lastOut, m = runInEnv(in, c.env, c.args[0], c.args[1:]...)
			c.runs = append(c.runs, m)
		}
	}
}

// median is the median wall time and the median peak memory of c's runs.
func (c *command) median() measure {
	walls := make([]time.Duration, len(c.runs))
	rss := make([]int64, len(c.runs))
	for i, m := range c.runs {
		walls[i], rss[i] = m.wall, m.rss
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return measure{wall: walls[len(walls)/2], rss: rss[len(rss)/2]}
}

func (m measure) String() string {
	return fmt.Sprintf("%.3fs %4dMB", m.wall.Seconds(), m.rss/1024)
}

// runIn runs a command in dir, through the runner, and returns its
// standard output, its wall time and its peak resident memory.
func runIn(dir, name string, args ...string) ([]byte, measure) {
	return runInEnv(dir, nil, name, args...)
}

// runInEnv is runIn with env set beside the environment.
func runInEnv(dir string, env []string, name string, args ...string) ([]byte, measure) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("platc-bench-out-%d", os.Getpid()))
	defer os.Remove(out)
	r := theRunner.run(request{Dir: dir, Name: name, Args: args, Env: append(os.Environ(), env...), Out: out})
	if r.Err != "" {
		fail("%s %s: %s\n%s", name, strings.Join(args, " "), r.Err, r.Stderr)
	}
	data, err := os.ReadFile(out)
	check(err)
	return data, measure{wall: r.Wall, rss: r.MaxRSS}
}

// The runner is a process of this program, started before this one holds
// anything large, that runs the measured commands. A child's peak memory
// as Linux reports it (ru_maxrss) is at least that of the process that
// started it, since os/exec starts a command in the memory of its parent
// before exec: measured from this process, whose peak grows with what it
// reads back ((b)'s output, the rendered Applications), every command
// after the first large size reported the parent's peak.
type runner struct {
	in  *json.Encoder
	out *json.Decoder
}

type request struct {
	Dir, Name string
	Args, Env []string
	Out       string // the file that gets the command's standard output
}

type response struct {
	Wall        time.Duration
	MaxRSS      int64 // KiB
	Err, Stderr string
}

var theRunner *runner

const runnerEnv = "PLATC_BENCH_RUNNER"

func startRunner() {
	self, err := os.Executable()
	check(err)
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), runnerEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	theRunner = &runner{in: json.NewEncoder(stdin), out: json.NewDecoder(stdout)}
}

func (r *runner) run(req request) response {
	check(r.in.Encode(req))
	var resp response
	check(r.out.Decode(&resp))
	return resp
}

// runRequests is the runner: it runs each request read from its standard
// input and answers on its standard output, holding nothing between them.
func runRequests() {
	in, out := json.NewDecoder(os.Stdin), json.NewEncoder(os.Stdout)
	for {
		var req request
		if err := in.Decode(&req); err != nil {
			return // the benchmark is done
		}
		var resp response
		f, err := os.Create(req.Out)
		check(err)
		cmd := exec.Command(req.Name, req.Args...)
		cmd.Dir, cmd.Env, cmd.Stdout = req.Dir, req.Env, f
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		start := time.Now()
		err = cmd.Run()
		resp.Wall = time.Since(start)
		check(f.Close())
		if err != nil {
			resp.Err, resp.Stderr = err.Error(), errOut.String()
		}
		if ru, ok := processUsage(cmd); ok {
			resp.MaxRSS = ru.Maxrss // KiB on Linux
		}
		check(out.Encode(resp))
	}
}

func run(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fail("%s %s: %v", name, strings.Join(args, " "), err)
	}
}

// renderedApps reads the render in out: the Applications platc rendered for
// the environments' modules (module-*), by environment and name, as JSON
// values, and how many Applications it has in all.
func renderedApps(out string) (modules map[string]any, all int) {
	modules = map[string]any{}
	clusters := filepath.Join(out, "deploy", "clusters")
	check(filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		check(err)
		all += bytes.Count(data, []byte("\nkind: Application\n"))
		rel, err := filepath.Rel(clusters, p)
		if err != nil || strings.HasPrefix(rel, "..") || filepath.Base(p) != "apps.yaml" {
			return nil
		}
		env, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			var app map[string]any
			check(yaml.Unmarshal(doc, &app))
			if app == nil {
				continue
			}
			name := app["metadata"].(map[string]any)["name"].(string)
			if strings.HasPrefix(name, "module-") {
				modules[env+"/"+name] = app
			}
		}
		return nil
	}))
	return modules, all
}

// equivalent compares (b)'s export with platc's Applications.
func equivalent(export []byte, rendered map[string]any) string {
	var pure map[string]map[string]any
	check(json.Unmarshal(export, &pure))
	got := map[string]any{}
	for env, apps := range pure {
		for name, app := range apps {
			got[env+"/"+name] = app
		}
	}
	var differ []string
	for k, v := range rendered {
		a, _ := json.Marshal(v)
		b, _ := json.Marshal(got[k])
		if !bytes.Equal(a, b) {
			differ = append(differ, k)
		}
	}
	for k := range got {
		if _, ok := rendered[k]; !ok {
			differ = append(differ, k)
		}
	}
	if len(differ) > 0 {
		slices.Sort(differ)
		return fmt.Sprintf("DIFFER on %d of %d Applications, such as %s", len(differ), len(rendered), differ[0])
	}
	return fmt.Sprintf("yield the same %d Applications", len(rendered))
}

// readTree returns the files under dir by their paths in it.
func readTree(dir string) map[string]string {
	files := map[string]string{}
	check(filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	}))
	return files
}

func copyTree(from, to string) {
	filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		check(err)
		rel, _ := filepath.Rel(from, p)
		write(filepath.Join(to, rel), data)
		return nil
	})
}

func write(p string, data []byte) {
	check(os.MkdirAll(filepath.Dir(p), 0o777))
	check(os.WriteFile(p, data, 0o666))
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchcompare: "+format+"\n", args...)
	os.Exit(1)
}

// processUsage is the resource usage of cmd's process, once it ran.
func processUsage(cmd *exec.Cmd) (*syscall.Rusage, bool) {
	if cmd.ProcessState == nil {
		return nil, false
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return ru, ok
}
