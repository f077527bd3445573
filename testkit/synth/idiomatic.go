package synth

import (
	"fmt"
	"strings"
	"testing/fstest"
)

// Idiomatic returns the platform of Platform(s), its spec written as a CUE
// user writes one rather than as a generator does: the modules, charts,
// environments and clients as tables of what differs, turned into the
// spec by comprehensions; what repeats (a chart module's values and
// endpoint, a disabled module's external endpoint) written once; defaults
// in pattern constraints (an environment's revision) and references (a
// client's repoURL is the platform's). It evaluates to the same values as
// Platform's spec (TestIdiomaticIsThePlatform), so that platc renders the
// same files from it: what it measures is the cost of the spelling.
func Idiomatic(s Size) fstest.MapFS {
	fsys := Platform(s) // the manifests and the clients' values files
	fsys["sources/platform.cue"] = &fstest.MapFile{Data: []byte(idiomaticSpec(s))}
	return fsys
}

func idiomaticSpec(s Size) string {
	var b strings.Builder
	w := waves(s.Modules)
	b.WriteString(`package platform

platform: {name: "synthetic", repoURL: "https://git.example.com/synthetic.git", defaultEnvironment: "env-000"}

// The chart pins: a chart's name is its key.
charts: {
	for name, c in _charts {
		(name): {repoURL: "https://charts\(c.repo).example.com", chart: name, version: c.version}
	}
	kro: {repoURL: "oci://registry.k8s.io/kro/charts", chart: "kro", version: "0.9.3"}
}

// A chart module: what differs is in _chartModules, the rest is here once.
modules: {
	for name, m in _chartModules {
		(name): {
			chart:     m.chart
			namespace: "ns-\(name)"
			values: {
				replicaCount: m.replicas
				image: tag: m.tag
				resources: requests: {cpu: "\(m.cpu)m", memory: "\(m.memory)Mi"}
				ingress: {enabled: m.ingress, hosts: ["\(name).example.com"]}
			}
			endpoint: {host: "\(name).ns-\(name).svc.cluster.local", port: m.port, scheme: "http"}
			if m.from != _|_ {
				wiring: "config.upstream": {from: m.from, field: "url"}
			}
		}
	}
	for name, _ in _pathModules {
		(name): {path: "sources/manifests/\(name)", namespace: "ns-\(name)"}
	}
	for name, members in _groups {
		(name): group: members
	}
	for name, n in _needs {
		(name): {needs: [n.module], wave: n.wave}
	}
}

// Every environment runs HEAD unless it pins a release.
environments: [string]: revision: *"HEAD" | string
environments: {
	for name, e in _environments {
		(name): {
			if e.release != _|_ {
				revision: e.release
				pinned:   true
			}
			modules: {
				for m in e.disabled {
					(m): {enabled: false, external: {host: "\(m).\(name).internal", port: 443, scheme: "https"}}
				}
				for m in e.overridden {
					(m): values: {podAnnotations: environment: name, resources: limits: memory: "\(e.limit)Mi"}
				}
			}
		}
	}
}

`)
	charts := max(1, s.Modules/5)
	b.WriteString("_charts: {\n")
	for c := range charts {
		fmt.Fprintf(&b, "\t\"chart-%03d\": {repo: %d, version: \"%d.%d.%d\"}\n", c, c%7, 1+c%3, c%10, c%4)
	}
	b.WriteString("}\n\n_chartModules: {\n")
	for m := range s.Modules {
		if !isChart(m, s.Modules) {
			continue
		}
		from := ""
		if src := wired(m, s.Modules); src >= 0 {
			from = fmt.Sprintf(", from: %q", moduleName(src))
		}
		fmt.Fprintf(&b, "\t%q: {chart: \"chart-%03d\", replicas: %d, tag: \"v%d.0.%d\", cpu: %d, memory: %d, ingress: %t, port: %d%s}\n",
			moduleName(m), m%charts, 1+m%3, m%5, m, 100+m%4*50, 128<<(m%3), m%2 == 0, 8000+m%100, from)
	}
	b.WriteString("}\n\n_pathModules: {\n")
	for m := range s.Modules {
		if isPath(m, s.Modules) {
			fmt.Fprintf(&b, "\t%q: {}\n", moduleName(m))
		}
	}
	b.WriteString("}\n\n_groups: {\n")
	for m := range s.Modules {
		if isGroup(m, s.Modules) {
			fmt.Fprintf(&b, "\t%q: [%q, %q, %q]\n", moduleName(m), moduleName(m+1), moduleName(m+2), moduleName(m+3))
		}
	}
	b.WriteString("}\n\n_needs: {\n")
	for m := range s.Modules {
		if n := need(m, s.Modules); n >= 0 {
			fmt.Fprintf(&b, "\t%q: {module: %q, wave: %d}\n", moduleName(m), moduleName(n), w[m])
		}
	}
	b.WriteString("}\n\n_environments: {\n")
	for e := range s.Environments {
		var disabledMods, overriddenMods []string
		for m := range s.Modules {
			switch {
			case disabled(e, m, s.Modules):
				disabledMods = append(disabledMods, fmt.Sprintf("%q", moduleName(m)))
			case overridden(e, m, s.Modules):
				overriddenMods = append(overriddenMods, fmt.Sprintf("%q", moduleName(m)))
			}
		}
		release := ""
		if e%2 == 1 {
			release = fmt.Sprintf("release: \"v1.%d.0\", ", e)
		}
		fmt.Fprintf(&b, "\t%q: {%slimit: %d, disabled: [%s], overridden: [%s]}\n",
			envName(e), release, 256<<(e%3), strings.Join(disabledMods, ", "), strings.Join(overriddenMods, ", "))
	}
	b.WriteString("}\n")

	if s.Clients > 0 {
		b.WriteString(`
modules: {
	kro: {chart: "kro", namespace: "kro-system"}
	definitions: {definitions: ["cache", "agent"], namespace: "kro-system", needs: ["kro"]}
	teams: {stacks: ["cache", "agent"], namespace: "teams"}
}
`)
		b.WriteString(stacks)
		b.WriteString(`
// A client's values come from the platform's repository.
clients: [string]: values: repoURL: platform.repoURL
clients: {
	for name, c in _clients {
		(name): stacks: {
			cache: {environments: c.environments, spec: size: c.size}
			agent: environments: c.environments
		}
	}
}

_clients: {
`)
		for c := range s.Clients {
			var envs []string
			for e := c % 10; e < s.Environments; e += 10 {
				if e%2 == 0 {
					envs = append(envs, fmt.Sprintf("%q", envName(e)))
				}
			}
			if len(envs) == 0 {
				envs = []string{fmt.Sprintf("%q", envName(0))}
			}
			fmt.Fprintf(&b, "\t\"team-%03d\": {environments: [%s], size: %q}\n", c, strings.Join(envs, ", "), []string{"small", "large"}[c%2])
		}
		b.WriteString("}\n")
	}
	return b.String()
}
