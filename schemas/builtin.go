package schemas

import (
	"embed"
	"io/fs"
	"strings"

	"github.com/platc/platc/compiler/upstream"
)

// The schemas of the few Kubernetes kinds (not CRDs) that product stacks
// may create or read: a team's Namespace, its NetworkPolicy, a ConfigMap,
// a Secret kro reads. kro's graph builder types a resource by its kind's
// schema as OpenAPI v3 discovery serves it (/openapi/v3/api/v1 ...);
// offline, platc serves these documents: api/openapi-spec/v3 of
// k8s.io/kubernetes at KubernetesVersion, cut to what the listed kinds
// reach. conformance/kro's TestBuiltinSchemas regenerates them, fails on
// a difference, and checks the table below. Importing k8s.io/kubernetes
// would make platc carry all of Kubernetes.

// KubernetesVersion is the Kubernetes whose published OpenAPI the
// built-in kinds' schemas are.
const KubernetesVersion = upstream.Kubernetes

// BuiltinKind is a kind of Kubernetes' own API that stacks may use.
type BuiltinKind struct {
	Group, Version, Kind string
	// Plural is the kind's resource, and Namespaced its scope, as the API
	// server's discovery (and kro's REST mapper) has them.
	Plural     string
	Namespaced bool
}

// APIVersion is the kind's group/version, as an object writes it.
func (k BuiltinKind) APIVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// DiscoveryPath is the path of the kind's OpenAPI v3 document under
// /openapi/v3: "api/v1", "apis/networking.k8s.io/v1".
func (k BuiltinKind) DiscoveryPath() string {
	if k.Group == "" {
		return "api/" + k.Version
	}
	return "apis/" + k.Group + "/" + k.Version
}

// BuiltinKinds are the built-in kinds platc has schemas of, sorted by
// group, version and kind. Read-only.
var BuiltinKinds = []BuiltinKind{
	{"", "v1", "ConfigMap", "configmaps", true},
	{"", "v1", "LimitRange", "limitranges", true},
	{"", "v1", "Namespace", "namespaces", false},
	{"", "v1", "ResourceQuota", "resourcequotas", true},
	{"", "v1", "Secret", "secrets", true},
	{"", "v1", "Service", "services", true},
	{"", "v1", "ServiceAccount", "serviceaccounts", true},
	{"networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", true},
	{"rbac.authorization.k8s.io", "v1", "Role", "roles", true},
	{"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true},
}

//go:embed builtin/*.json
var builtin embed.FS

// BuiltinFile is the file name of a discovery path's document in
// schemas/builtin, as Kubernetes names it in api/openapi-spec/v3:
// "api/v1" is api__v1_openapi.json.
func BuiltinFile(discoveryPath string) string {
	return strings.ReplaceAll(discoveryPath, "/", "__") + "_openapi.json"
}

// Builtin returns the OpenAPI v3 documents of the built-in kinds, by
// discovery path ("api/v1"). The bytes are the embedded files': treat
// them as read-only.
func Builtin() map[string][]byte {
	out := map[string][]byte{}
	for _, k := range BuiltinKinds {
		p := k.DiscoveryPath()
		if _, ok := out[p]; ok {
			continue
		}
		data, err := fs.ReadFile(builtin, "builtin/"+BuiltinFile(p))
		if err != nil {
			panic("platc: schemas/builtin lacks " + BuiltinFile(p) + ": " + err.Error()) // embedded, tested
		}
		out[p] = data
	}
	return out
}
