package compiler_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/platc/platc/compiler"
)

// badSpec is a small valid platform with extra, a part that is wrong n
// times over, appended.
func badSpec(extra func(b *strings.Builder, n int), n int) fstest.MapFS {
	var b strings.Builder
	b.WriteString(`package platform

platform: {name: "mini", repoURL: "https://git.example.com/mini.git"}
charts: qdrant: {repoURL: "https://qdrant.github.io/qdrant-helm", chart: "qdrant", version: "1.15.4"}
environments: dev: revision: "main"
`)
	extra(&b, n)
	spec, beside, ok := strings.Cut(b.String(), besideMarker)
	fsys := fstest.MapFS{"sources/platform.cue": {Data: []byte(spec)}}
	if ok {
		fsys["sources/zz-beside.cue"] = &fstest.MapFile{Data: []byte("package platform\n\n" + beside)}
	}
	return fsys
}

// unknownFields is a module with n fields the schema does not have.
func unknownFields(b *strings.Builder, n int) {
	b.WriteString("modules: m: {\n\tchart: \"qdrant\", namespace: \"rag\"\n")
	for i := range n {
		fmt.Fprintf(b, "\tunknownField%d: 1\n", i)
	}
	b.WriteString("}\n")
}

// unknownNeeds is a module that needs n modules nobody declared.
func unknownNeeds(b *strings.Builder, n int) {
	b.WriteString("modules: m: {chart: \"qdrant\", namespace: \"rag\", needs: [\n")
	for i := range n {
		fmt.Fprintf(b, "\t\"nosuch%d\",\n", i)
	}
	b.WriteString("]}\n")
}

// unknownMembers is a group of n modules nobody declared.
func unknownMembers(b *strings.Builder, n int) {
	b.WriteString("modules: m: {chart: \"qdrant\", namespace: \"rag\"}\nmodules: g: group: [\n")
	for i := range n {
		fmt.Fprintf(b, "\t\"nosuch%d\",\n", i)
	}
	b.WriteString("]\n")
}

// modulesList is the modules written as a list of n names, not a struct.
func modulesList(b *strings.Builder, n int) {
	b.WriteString("modules: [\n")
	for i := range n {
		fmt.Fprintf(b, "\t\"m%d\",\n", i)
	}
	b.WriteString("]\n")
}

// modulesListBeside is modulesList in a file of its own, beside a file
// that declares modules as a struct: the spec is then no plain data, and
// CUE evaluates it.
func modulesListBeside(b *strings.Builder, n int) {
	b.WriteString("modules: web: {path: \"web\", namespace: \"web\"}\n")
	b.WriteString(besideMarker)
	modulesList(b, n)
}

// besideMarker starts, in what an extra function writes, the part that
// badSpec puts in a file of its own.
const besideMarker = "// beside\n"

// nestedLists is a field whose value is n lists, each in the one before,
// none closed.
func nestedLists(b *strings.Builder, n int) {
	b.WriteString("x: " + strings.Repeat("[", n) + "\n")
}

// longLabel is a module with an unknown field whose label is 1 MB long,
// over n fields.
func longLabel(b *strings.Builder, n int) {
	b.WriteString("modules: m: {\n\tchart: \"qdrant\", namespace: \"rag\"\n\t\"" + strings.Repeat("x", 1<<20) + "\": {\n")
	for i := range n {
		fmt.Fprintf(b, "\t\tf%d: 1\n", i)
	}
	b.WriteString("\t}\n}\n")
}

// BenchmarkBadInput measures how long platc takes to report large bad
// input: every problem is reported, in time linear in their number.
// Targets (issue 15): 10,000 unknown fields under 1 s, 100,000 unknown
// names in needs or in a group under 2 s; (issue 25) 100,000 names where
// modules expects a struct, one problem, under 1 s, and 100,000 lists
// nested and never closed (CUE refuses more than 10,000), the same names
// in a file beside one that declares modules (issue 46), and a label of
// 1 MB over 2,000 fields (each field's path held the label: 2 GB).
func BenchmarkBadInput(b *testing.B) {
	cases := []struct {
		name     string
		extra    func(*strings.Builder, int)
		n        int
		problems int // at least
	}{
		{"unknown-fields-1000", unknownFields, 1000, 1000},
		{"unknown-fields-10000", unknownFields, 10000, 10000},
		{"unknown-needs-100000", unknownNeeds, 100000, 100000},
		{"unknown-members-100000", unknownMembers, 100000, 100000},
		{"modules-as-a-list-100000", modulesList, 100000, 1},
		{"modules-list-beside-100000", modulesListBeside, 100000, 1},
		{"nested-lists-100000", nestedLists, 100000, 1},
		{"long-label-2000", longLabel, 2000, 1},
	}
	for _, c := range cases {
		fsys := badSpec(c.extra, c.n)
		b.Run(c.name, func(b *testing.B) {
			res := compiler.Compile(fsys, compiler.Options{})
			if got := len(res.Log.Problems()); got < c.problems {
				b.Fatalf("%d problems, want at least %d:\n%.2000s", got, c.problems, res.Log)
			}
			b.ReportAllocs()
			for b.Loop() {
				compiler.Compile(fsys, compiler.Options{})
			}
		})
	}
}
