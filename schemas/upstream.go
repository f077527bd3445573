package schemas

import (
	_ "embed"
	"strings"
	"sync"
)

// upstreamFields lists the fields upstream's CRDs declare for kinds
// platc embeds a smaller CRD of (testkit/crdsubset.Fields). A chart's
// Application or AppProject may set any field Argo CD's CRD declares;
// these lines tell those from fields no CRD declares. conformance/argocd's
// TestUpstreamFieldsAreArgoCDs makes them from the targeted Argo CD.
//
//go:embed upstream-fields.txt
var upstreamFields string

// UpstreamFieldsHeader is the comment upstream-fields.txt starts with,
// naming the Argo CD release its fields are of.
func UpstreamFieldsHeader(argoCD string) string {
	return "# The fields Argo CD " + argoCD + "'s CRDs of the Application and the AppProject declare,\n" +
		"# one per line: group/Kind version path, with [] for a list's items, * for a map's\n" +
		"# keys and ** for anything below. Made by conformance/argocd (go test\n" +
		"# -run TestUpstreamFieldsAreArgoCDs -update-fields there); do not edit.\n"
}

// fieldNode is a field of upstreamFields and the fields below it.
type fieldNode struct {
	below    map[string]*fieldNode
	anything bool // x-kubernetes-preserve-unknown-fields: ** below
}

// child is n's field name, added where n has none.
func (n *fieldNode) child(name string) *fieldNode {
	if n.below[name] == nil {
		if n.below == nil {
			n.below = map[string]*fieldNode{}
		}
		n.below[name] = &fieldNode{}
	}
	return n.below[name]
}

// upstreamTree is upstreamFields by kind ("group/Kind version"), then
// field.
var upstreamTree = sync.OnceValue(func() map[string]*fieldNode {
	kinds := &fieldNode{}
	for line := range strings.Lines(upstreamFields) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			continue
		}
		n := kinds.child(fields[0] + " " + fields[1])
		for _, name := range strings.Split(strings.TrimPrefix(fields[2], "."), ".") {
			if name == "**" {
				n.anything = true
				break
			}
			n = n.child(name)
		}
	}
	return kinds.below
})

// UpstreamDeclares reports whether upstream's CRD of apiVersion and kind
// declares the field at pointer ("/spec/source/helm/values"); false for
// an unlisted kind.
func UpstreamDeclares(apiVersion, kind, pointer string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return false
	}
	n := upstreamTree()[group+"/"+kind+" "+version]
	if n == nil {
		return false
	}
	for seg := range strings.SplitSeq(strings.TrimPrefix(pointer, "/"), "/") {
		if n.anything {
			return true
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		next := n.below[seg]
		if next == nil && isIndex(seg) {
			next = n.below["[]"]
		}
		if next == nil {
			next = n.below["*"]
		}
		if next == nil {
			return false
		}
		n = next
	}
	return true
}

func isIndex(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
