// Package synth generates platform specs of a given size, for benchmarks. The
// platforms are realistic in proportion: pinned charts with values, folders
// of manifests, groups, dependencies, and per-environment overrides,
// disabled modules and external endpoints.
//
// It is not used by platc itself, and the same size always gives the same
// bytes.
package synth

import (
	"fmt"
	"strings"
	"testing/fstest"
)

// Size is the shape of a generated platform.
type Size struct {
	Environments int
	Modules      int
}

// String names the size, as benchmarks do: 10x100.
func (s Size) String() string { return fmt.Sprintf("%dx%d", s.Environments, s.Modules) }

// Platform returns a repository holding a platform spec of the given size in
// sources/, with the manifests its path modules name.
func Platform(s Size) fstest.MapFS {
	fsys := fstest.MapFS{}
	var b strings.Builder
	b.WriteString("package platform\n\n")
	b.WriteString(`platform: {name: "synthetic", repoURL: "https://git.example.com/synthetic.git", defaultEnvironment: "env-000"}` + "\n\n")

	charts := max(1, s.Modules/5)
	b.WriteString("charts: {\n")
	for c := range charts {
		fmt.Fprintf(&b, "\t\"chart-%03d\": {repoURL: \"https://charts%d.example.com\", chart: \"chart-%03d\", version: \"%d.%d.%d\"}\n", c, c%7, c, 1+c%3, c%10, c%4)
	}
	b.WriteString("}\n\n")

	// Every tenth module is a group of the next three; every fifth a
	// folder of manifests; the rest charts. Each module needs one of the
	// few before it, so the graph has depth.
	member := map[int]bool{}
	b.WriteString("modules: {\n")
	for m := range s.Modules {
		name := moduleName(m)
		switch {
		case m%10 == 0 && m+3 < s.Modules:
			fmt.Fprintf(&b, "\t%q: group: [%q, %q, %q]\n", name, moduleName(m+1), moduleName(m+2), moduleName(m+3))
			member[m+1], member[m+2], member[m+3] = true, true, true
		case m%5 == 0:
			dir := "sources/manifests/" + name
			fsys[dir+"/configmap.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n", name)}
			fmt.Fprintf(&b, "\t%q: {path: %q, namespace: %q%s}\n", name, dir, "ns-"+name, needs(m, member))
		default:
			fmt.Fprintf(&b, "\t%q: {\n\t\tchart: \"chart-%03d\"\n\t\tnamespace: %q%s\n", name, m%charts, "ns-"+name, needs(m, member))
			fmt.Fprintf(&b, "\t\tvalues: {replicaCount: %d, image: tag: \"v%d.0.%d\", resources: requests: {cpu: \"%dm\", memory: \"%dMi\"}, ingress: {enabled: %t, hosts: [\"%s.example.com\"]}}\n",
				1+m%3, m%5, m, 100+m%4*50, 128<<(m%3), m%2 == 0, name)
			fmt.Fprintf(&b, "\t\tendpoint: {host: \"%s.ns-%s.svc.cluster.local\", port: %d, scheme: \"http\"}\n", name, name, 8000+m%100)
			if m%4 == 1 && m > 2 && !isGroup(m-2, s.Modules) && (m-2)%5 != 0 {
				fmt.Fprintf(&b, "\t\twiring: \"config.upstream\": {from: %q, field: \"url\"}\n", moduleName(m-2))
			}
			b.WriteString("\t}\n")
		}
	}
	b.WriteString("}\n\n")

	b.WriteString("environments: {\n")
	for e := range s.Environments {
		name := fmt.Sprintf("env-%03d", e)
		if e%2 == 0 {
			fmt.Fprintf(&b, "\t%q: {\n\t\trevision: \"HEAD\"\n", name)
		} else {
			fmt.Fprintf(&b, "\t%q: {\n\t\trevision: \"v1.%d.0\"\n\t\tpinned: true\n", name, e)
		}
		b.WriteString("\t\tmodules: {\n")
		for m := e % 7; m < s.Modules; m += 7 {
			if isGroup(m, s.Modules) || m%5 == 0 {
				continue
			}
			fmt.Fprintf(&b, "\t\t\t%q: values: {replicaCount: %d, env: %q}\n", moduleName(m), 2+e%3, name)
		}
		// One module in thirteen is operated by the environment's owner.
		for m := 1 + e%13; m < s.Modules; m += 13 {
			if isGroup(m, s.Modules) || m%5 == 0 {
				continue
			}
			fmt.Fprintf(&b, "\t\t\t%q: {enabled: false, external: {host: \"%s.%s.internal\", port: 443, scheme: \"https\"}}\n", moduleName(m), moduleName(m), name)
		}
		b.WriteString("\t\t}\n\t}\n")
	}
	b.WriteString("}\n")

	fsys["sources/platform.cue"] = &fstest.MapFile{Data: []byte(b.String())}
	return fsys
}

func moduleName(m int) string { return fmt.Sprintf("module-%04d", m) }

func isGroup(m, modules int) bool { return m%10 == 0 && m+3 < modules }

// needs makes a module need one of the few before it, unless that one is
// delivered by a group the module is not in.
func needs(m int, member map[int]bool) string {
	if m < 2 || member[m] {
		return ""
	}
	n := m - 1 - m%3
	if n < 0 || member[n] {
		return ""
	}
	return fmt.Sprintf(", needs: [%q]", moduleName(n))
}
