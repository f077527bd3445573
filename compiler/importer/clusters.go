package importer

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/argocd"
	"github.com/platc/platc/compiler/diag"
	"github.com/platc/platc/compiler/manifests"
)

// Cluster is what Argo CD's clusters generator reads of one cluster
// Secret: its name, server and project (data), its labels and
// annotations. The credentials (config) are never read.
type Cluster struct {
	Name, Server, Project string
	Labels, Annotations   map[string]string
	Where                 string // file:line of the Secret
}

// secretTypeLabel marks Argo CD's cluster Secrets; maxClusters bounds
// how many are read.
const (
	secretTypeLabel = "argocd.argoproj.io/secret-type"
	maxClusters     = 10000
)

// ReadClusters reads the cluster Secrets of one Argo CD from a YAML file
// (file names it in errors): Secrets one per document, or a List of them,
// as `kubectl get secrets -l argocd.argoproj.io/secret-type=cluster -o
// yaml` writes them. data and stringData are read, as the API server
// merges them. A Secret without the cluster label is refused: Argo CD's
// clusters generator would not see it.
func ReadClusters(file string, data []byte) ([]Cluster, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB: not read", file, MaxFileSize>>20)
	}
	var out []Cluster
	for doc, err := range manifests.Documents(data) {
		if err != nil {
			line, col, msg := diag.YAMLSyntax(err, data)
			return nil, fmt.Errorf("%s:%d:%d: not YAML: %s", file, line, col, msg)
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		items := []*yaml.Node{doc.Content[0]}
		var head struct{ Kind string }
		if doc.Content[0].Decode(&head) == nil && strings.HasSuffix(head.Kind, "List") {
			items = nil
			for i := 0; i+1 < len(doc.Content[0].Content); i += 2 {
				if doc.Content[0].Content[i].Value == "items" && doc.Content[0].Content[i+1].Kind == yaml.SequenceNode {
					items = doc.Content[0].Content[i+1].Content
				}
			}
		}
		for _, n := range items {
			c, err := readCluster(file, n)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
			if len(out) > maxClusters {
				return nil, fmt.Errorf("%s: more than %d cluster Secrets: not read", file, maxClusters)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cluster Secret: write them as kubectl get secrets -n argocd -l %s=cluster -o yaml does", file, secretTypeLabel)
	}
	return out, nil
}

func readCluster(file string, n *yaml.Node) (Cluster, error) {
	at := fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column)
	var s struct {
		Kind     string
		Metadata struct {
			Name        string
			Labels      map[string]string
			Annotations map[string]string
		}
		Data       map[string]string
		StringData map[string]string `yaml:"stringData"`
	}
	if err := n.Decode(&s); err != nil {
		return Cluster{}, fmt.Errorf("%s: not a Secret: %s", at, oneLine(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if s.Kind != "Secret" {
		return Cluster{}, fmt.Errorf("%s: not a Secret (kind %q): give Argo CD's cluster Secrets only", at, s.Kind)
	}
	if s.Metadata.Labels[secretTypeLabel] != "cluster" {
		return Cluster{}, fmt.Errorf("%s: Secret %s has no label %s: cluster, so Argo CD's clusters generator does not read it: add the label, or leave the Secret out", at, s.Metadata.Name, secretTypeLabel)
	}
	notBase64 := "" // the first field of data that is not
	field := func(key string) string {
		if v, ok := s.StringData[key]; ok {
			return v
		}
		b, err := base64.StdEncoding.DecodeString(s.Data[key])
		if err != nil && notBase64 == "" {
			notBase64 = key
		}
		return string(b)
	}
	c := Cluster{Name: field("name"), Server: field("server"), Project: field("project"),
		Labels: s.Metadata.Labels, Annotations: s.Metadata.Annotations, Where: fmt.Sprintf("%s:%d", file, n.Line)}
	if notBase64 != "" {
		return c, fmt.Errorf("%s: Secret %s: data.%s is not base64: write it as stringData.%s, or encode it", at, s.Metadata.Name, notBase64, notBase64)
	}
	if c.Server == "" {
		return c, fmt.Errorf("%s: Secret %s has no server: Argo CD needs data.server of a cluster", at, s.Metadata.Name)
	}
	return c, nil
}

// excludedClusterAnnotations are the annotations Argo CD's clusters
// generator does not pass on (generators/cluster.go).
var excludedClusterAnnotations = map[string]bool{
	"argocd.argoproj.io/application-set-refresh":           true,
	"argocd.argoproj.io/application-set-refresh-timestamp": true,
	"argocd.argoproj.io/application-set-hydrate":           true,
	"argocd.argoproj.io/application-set-hydrate-timestamp": true,
	"argocd.argoproj.io/tracking-id":                       true,
	"argocd.argoproj.io/installation-id":                   true,
	"kubectl.kubernetes.io/last-applied-configuration":     true,
}

// clusters is Argo CD's clusters generator (generators/cluster.go) over
// the cluster Secrets given: those its selector matches, each a
// parameter set, and the in-cluster where the selector is empty and no
// Secret is of it.
func (x *expander) clusters(g map[string]any) ([]map[string]any, string) {
	if x.clusterList == nil {
		return nil, "its clusters generator reads the cluster Secrets of Argo CD, which are not in the repository (give them with -clusters FILE)"
	}
	sel, _ := g["selector"].(map[string]any)
	// Argo CD lists the Secrets by name: one per name, the last listed.
	byName := map[string]Cluster{}
	inCluster := false
	for _, c := range x.clusterList {
		ok, err := selectorMatches(sel, c.Labels)
		if err != nil {
			return nil, "its clusters generator's selector is not one: " + err.Error()
		}
		if ok {
			byName[c.Name] = c
			inCluster = inCluster || c.Server == argocd.InClusterServer
		}
	}
	var out []map[string]any
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, x.clusterParams(byName[name]))
	}
	if len(anyList(sel["matchExpressions"])) == 0 && len(matchLabels(sel)) == 0 && !inCluster {
		out = append(out, map[string]any{"name": argocd.InClusterName, "nameNormalized": argocd.InClusterName, "server": argocd.InClusterServer, "project": ""})
	}
	if reason := x.appendValues(g, out); reason != "" {
		return nil, reason
	}
	if g["flatList"] == true {
		return []map[string]any{{"clusters": toAny(out)}}, ""
	}
	return out, ""
}

// clusterParams are one cluster's parameters: flat keys
// (metadata.labels.<key>) or, with Go templates, nested maps.
func (x *expander) clusterParams(c Cluster) map[string]any {
	p := map[string]any{"name": c.Name, "nameNormalized": sanitizeName(c.Name), "server": c.Server, "project": c.Project}
	annotations := map[string]any{}
	for k, v := range c.Annotations {
		if !excludedClusterAnnotations[k] {
			annotations[k] = v
		}
	}
	labels := map[string]any{}
	for k, v := range c.Labels {
		labels[k] = v
	}
	meta := map[string]any{}
	if len(c.Annotations) > 0 {
		meta["annotations"] = annotations
	}
	if len(c.Labels) > 0 {
		meta["labels"] = labels
	}
	if x.goTemplate {
		p["metadata"] = meta
	} else {
		flatten("metadata", meta, p)
	}
	return p
}

// selectorMatches is a Kubernetes label selector (matchLabels,
// matchExpressions) over labels; nil matches everything.
func selectorMatches(sel map[string]any, labels map[string]string) (bool, error) {
	for k, v := range matchLabels(sel) {
		if got, ok := labels[k]; !ok || got != fmt.Sprint(v) {
			return false, nil
		}
	}
	for _, e := range anyList(sel["matchExpressions"]) {
		m, _ := e.(map[string]any)
		key, op := str(m["key"]), str(m["operator"])
		var vals []string
		for _, v := range anyList(m["values"]) {
			vals = append(vals, fmt.Sprint(v))
		}
		got, has := labels[key]
		in := has && slices.Contains(vals, got)
		switch {
		case op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist":
			return false, fmt.Errorf("operator %q is not In, NotIn, Exists or DoesNotExist", op)
		case (op == "In" || op == "NotIn") && len(vals) == 0:
			return false, fmt.Errorf("operator %s needs values", op)
		case op == "In" && !in, op == "NotIn" && in, op == "Exists" && !has, op == "DoesNotExist" && has:
			return false, nil
		}
	}
	return true, nil
}

// paramsMatch is a generator's own selector over one parameter set, its
// values flattened to text, as Argo CD's Transform filters them.
func paramsMatch(sel map[string]any, params map[string]any) (bool, error) {
	flat := map[string]any{}
	flatten("", params, flat) // values as text, as Argo CD's flattenParameters
	labels := make(map[string]string, len(flat))
	for k, v := range flat {
		labels[k] = v.(string)
	}
	return selectorMatches(sel, labels)
}

// merge is Argo CD's merge generator (generators/merge.go): the first
// generator's parameter sets, each overridden by the set of each later
// generator with the same merge keys' values.
func (x *expander) merge(g map[string]any) ([]map[string]any, string) {
	gens := anyList(g["generators"])
	if len(gens) < 2 {
		return nil, "its merge generator has fewer than two generators"
	}
	keys := anyList(g["mergeKeys"])
	if len(keys) == 0 {
		return nil, "its merge generator has no mergeKeys"
	}
	keyOf := func(p map[string]any) string {
		m := map[string]any{}
		for _, k := range keys {
			m[str(k)] = p[str(k)]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	var base []map[string]any
	baseIndex := map[string]int{}
	for i, child := range gens {
		gen, _ := child.(map[string]any)
		params, reason := x.params(gen, nil)
		if reason != "" {
			return nil, reason
		}
		if i > 0 && len(params) == 0 {
			continue
		}
		if len(params) == 0 {
			return nil, ""
		}
		seen := map[string]bool{}
		for _, p := range params {
			k := keyOf(p)
			if seen[k] {
				return nil, "its merge generator's generator " + fmt.Sprint(i+1) + " makes two parameter sets of merge key " + k
			}
			seen[k] = true
			if i == 0 {
				baseIndex[k] = len(base)
				base = append(base, p)
				continue
			}
			if j, ok := baseIndex[k]; ok {
				if x.goTemplate {
					base[j] = mergo(base[j], p, true)
				} else {
					m := maps.Clone(base[j])
					maps.Copy(m, p)
					base[j] = m
				}
			}
		}
	}
	return base, ""
}

func matchLabels(sel map[string]any) map[string]any {
	m, _ := sel["matchLabels"].(map[string]any)
	return m
}
