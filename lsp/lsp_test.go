// Package lsp drives CUE's language server, cue lsp, over the language
// server protocol (JSON-RPC on stdio), on a spec that platc init wrote,
// as an editor does: initialize, didOpen, completion, hover. It is a
// module of its own, run by make lsp (and CI), since it builds the cue
// command, whose modules platc does not otherwise need: make test stays
// offline and fast.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
)

// TestCueVersionIsPlatcs holds this module's CUE to the one platc is
// built with: the language server tested is the one of the CUE platc
// reads the spec with, and whose language version platc editor asks for.
func TestCueVersionIsPlatcs(t *testing.T) {
	if got, want := requiredVersion(t, "go.mod", "cuelang.org/go"), requiredVersion(t, "../go.mod", "cuelang.org/go"); got != want {
		t.Errorf("this module requires cuelang.org/go %s, platc %s: make them the same", got, want)
	}
}

func requiredVersion(t *testing.T, file, module string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(module) + `\s+(v\S+)`).FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s requires no %s", file, module)
	}
	return string(m[1])
}

// TestLanguageServer writes a platform with platc init, opens its spec
// in cue lsp, and asks what an editor asks:
//
//   - completion at the top of the spec, in platform, in a chart, a
//     module and an environment (entries of maps of the schema): the
//     fields the schema declares there, each of them;
//   - hover on a field of platform and on a field of a module: the
//     field's comment in the schema.
//
// cue lsp v0.17 publishes no diagnostic of evaluation (a field the
// schema does not have): that is cue vet's, which marks it through the
// same files (docs/editors.md).
func TestLanguageServer(t *testing.T) {
	platc := os.Getenv("PLATC")
	if platc == "" {
		t.Fatal("PLATC names no platc binary: run make lsp from the repository root")
	}
	cue := buildCue(t)
	repo := filepath.Join(t.TempDir(), "shop")
	run(t, "", platc, "init", "-repo", "https://git.example.com/shop.git", repo)
	specDir := filepath.Join(repo, "sources")
	file := filepath.Join(specDir, "platform.cue")
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	schema := readSchema(t)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s := startServer(ctx, t, cue, repo)
	uri := "file://" + filepath.ToSlash(file)
	s.initialize(t, "file://"+filepath.ToSlash(repo))
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "cue", "version": 1, "text": string(text)}})

	for _, tt := range []struct {
		name   string
		at     position // the start of this text's first occurrence
		fields []string // what completion must offer there
	}{
		{"top level", find(t, text, "charts: podinfo"), schema.fields("#Spec")},
		{"platform", find(t, text, "repoURL:"), schema.fields("#Platform")},
		{"a module", find(t, text, "namespace: \"podinfo\""), schema.fields("#Module")},
		{"a chart", find(t, text, "version: \"6.4.0\""), schema.fields("#Chart")},
		{"an environment", find(t, text, "revision: \"HEAD\""), schema.fields("#Environment")},
	} {
		t.Run("completion in "+tt.name, func(t *testing.T) {
			var got struct {
				Items []struct{ Label string } `json:"items"`
			}
			s.call(t, "textDocument/completion", s.at(uri, tt.at), &got)
			var labels []string
			for _, it := range got.Items {
				labels = append(labels, it.Label)
			}
			var missing []string
			for _, f := range tt.fields {
				if !slices.Contains(labels, f) {
					missing = append(missing, f)
				}
			}
			if len(tt.fields) < 3 || len(missing) > 0 {
				t.Errorf("completion offers %v; the schema's fields %v are missing", labels, missing)
			}
		})
	}
	for _, tt := range []struct {
		name string
		at   position
		doc  string // the field's comment in the schema
	}{
		{"platform's repoURL", find(t, text, "repoURL:"), schema.doc("#Platform", "repoURL")},
		{"a module's chart", find(t, text, "chart:     \"podinfo\""), schema.doc("#Module", "chart")},
	} {
		t.Run("hover on "+tt.name, func(t *testing.T) {
			var got struct {
				Contents struct{ Value string } `json:"contents"`
			}
			s.call(t, "textDocument/hover", s.at(uri, tt.at), &got)
			if tt.doc == "" || !strings.Contains(oneLine(got.Contents.Value), oneLine(tt.doc)) {
				t.Errorf("hover shows %q, not the schema's comment %q", got.Contents.Value, tt.doc)
			}
		})
	}
	s.shutdown(t)

	// What the language server does not mark, cue vet does, through the
	// same files.
	if err := os.WriteFile(filepath.Join(specDir, "typo.cue"), []byte("package platform\n\nmodules: podinfo: nmespace: \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vet := exec.CommandContext(ctx, cue, "vet", "-c=false", ".")
	vet.Dir = specDir
	out, err := vet.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "modules.podinfo.nmespace: field not allowed") {
		t.Errorf("cue vet of a spec with an unknown field: %v\n%s", err, out)
	}
}

// buildCue builds the cue command of this module's CUE into a temporary
// folder.
func buildCue(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cue")
	start := time.Now()
	run(t, ".", "go", "build", "-o", bin, "cuelang.org/go/cmd/cue")
	t.Logf("built cue in %s", time.Since(start).Round(time.Second))
	return bin
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// position is a place in a file as the protocol counts: 0-based lines,
// and characters in UTF-16 code units (the spec is ASCII here).
type position struct{ line, character int }

// find is where s first occurs in text.
func find(t *testing.T, text []byte, s string) position {
	t.Helper()
	i := strings.Index(string(text), s)
	if i < 0 {
		t.Fatalf("no %q in the spec platc init wrote:\n%s", s, text)
	}
	before := string(text[:i])
	return position{strings.Count(before, "\n"), i - (strings.LastIndex(before, "\n") + 1)}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// schema is platc's schema, schemas/platform.cue, parsed.
type schema map[string]*ast.StructLit

func readSchema(t *testing.T) schema {
	t.Helper()
	f, err := parser.ParseFile("../schemas/platform.cue", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	s := schema{}
	for _, d := range f.Decls {
		if field, ok := d.(*ast.Field); ok {
			name, _, _ := ast.LabelName(field.Label)
			if st, ok := field.Value.(*ast.StructLit); ok {
				s[name] = st
			}
		}
	}
	return s
}

// fields are the regular labels of definition def.
func (s schema) fields(def string) []string {
	var names []string
	for _, d := range s[def].Elts {
		if field, ok := d.(*ast.Field); ok {
			if name, _, err := ast.LabelName(field.Label); err == nil && !strings.HasPrefix(name, "#") && !strings.HasPrefix(name, "_") {
				names = append(names, name)
			}
		}
	}
	return names
}

// doc is the comment of field name of definition def, without its //.
func (s schema) doc(def, name string) string {
	for _, d := range s[def].Elts {
		field, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if n, _, _ := ast.LabelName(field.Label); n != name {
			continue
		}
		for _, cg := range ast.Comments(field) {
			if cg.Doc {
				return cg.Text()
			}
		}
	}
	return ""
}

// server is a cue lsp process and the client's side of its connection.
type server struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	id      int
	waiting map[int]chan message
	stderr  strings.Builder
}

type message struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func startServer(ctx context.Context, t *testing.T, cue, dir string) *server {
	t.Helper()
	s := &server{waiting: map[int]chan message{}}
	s.cmd = exec.CommandContext(ctx, cue, "lsp")
	s.cmd.Dir = dir
	s.cmd.Stderr = &s.stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.in.Close()
		s.cmd.Wait()
		if t.Failed() {
			t.Logf("cue lsp's stderr:\n%s", s.stderr.String())
		}
	})
	go s.read(bufio.NewReader(out))
	return s
}

// read dispatches the server's messages: a response to its caller, a
// request of the server answered with null, a notification dropped.
func (s *server) read(r *bufio.Reader) {
	for {
		length := -1
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				s.closeAll()
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, max(length, 0))
		if _, err := io.ReadFull(r, body); err != nil {
			s.closeAll()
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil || m.ID == nil {
			continue
		}
		if m.Method != "" {
			s.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": nil})
			continue
		}
		s.mu.Lock()
		ch := s.waiting[*m.ID]
		delete(s.waiting, *m.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

func (s *server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ch := range s.waiting {
		close(ch)
		delete(s.waiting, id)
	}
}

func (s *server) send(v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n%s", len(data), data)
}

func (s *server) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// call sends a request and decodes its result into result.
func (s *server) call(t *testing.T, method string, params, result any) {
	t.Helper()
	s.mu.Lock()
	s.id++
	id := s.id
	ch := make(chan message, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m, ok := <-ch:
		switch {
		case !ok:
			t.Fatalf("%s: cue lsp ended", method)
		case m.Error != nil:
			t.Fatalf("%s: %s", method, m.Error.Message)
		case result != nil:
			if err := json.Unmarshal(m.Result, result); err != nil {
				t.Fatalf("%s: %v: %s", method, err, m.Result)
			}
		}
	case <-time.After(time.Minute):
		t.Fatalf("%s: no answer from cue lsp in a minute", method)
	}
}

func (s *server) initialize(t *testing.T, root string) {
	t.Helper()
	var got struct {
		Capabilities struct {
			CompletionProvider any  `json:"completionProvider"`
			HoverProvider      bool `json:"hoverProvider"`
		} `json:"capabilities"`
	}
	s.call(t, "initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          root,
		"workspaceFolders": []any{map[string]any{"uri": root, "name": "shop"}},
		"capabilities": map[string]any{"textDocument": map[string]any{
			"hover":      map[string]any{"contentFormat": []string{"markdown", "plaintext"}},
			"completion": map[string]any{"completionItem": map[string]any{"documentationFormat": []string{"markdown", "plaintext"}}},
		}},
	}, &got)
	if got.Capabilities.CompletionProvider == nil || !got.Capabilities.HoverProvider {
		t.Fatalf("cue lsp does not offer completion and hover: %+v", got.Capabilities)
	}
	s.notify("initialized", map[string]any{})
}

func (s *server) at(uri string, p position) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": p.line, "character": p.character}}
}

func (s *server) shutdown(t *testing.T) {
	t.Helper()
	s.call(t, "shutdown", nil, nil)
	s.notify("exit", nil)
}
