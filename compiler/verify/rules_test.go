package verify

import "testing"

// These tables pin Argo CD's semantics (AppProject.IsSourcePermitted,
// isDestinationMatched, IsAppNamespacePermitted, IsGroupKindPermitted).

func TestSourcePermitted(t *testing.T) {
	tests := []struct {
		patterns []string
		repo     string
		want     bool
	}{
		{[]string{"*"}, "https://anything.example.com/x/y.git", true},
		{[]string{"https://git.example.com/p.git"}, "https://git.example.com/p.git", true},
		{[]string{"https://git.example.com/p"}, "https://GIT.example.com/p.git", true}, // normalized: case, .git
		{[]string{"git@git.example.com:org/p.git"}, "ssh://git@git.example.com/org/p", true},
		{[]string{"https://git.example.com/*"}, "https://git.example.com/p.git", true},
		{[]string{"https://git.example.com/*"}, "https://git.example.com/org/p.git", false}, // '/' separates
		{[]string{"https://git.example.com/**"}, "https://git.example.com/org/p.git", true},
		{[]string{"https://charts.example.com/*", "!https://charts.example.com/stable"}, "https://charts.example.com/stable", false},
		{[]string{"https://charts.example.com/*", "!https://charts.example.com/stable"}, "https://charts.example.com/beta", true},
		{[]string{"oci://ghcr.io/berriai/litellm-helm"}, "oci://ghcr.io/berriai/litellm-helm", true},
		{nil, "https://git.example.com/p.git", false},
	}
	for _, tt := range tests {
		if got := sourcePermitted(tt.patterns, tt.repo); got != tt.want {
			t.Errorf("sourcePermitted(%q, %q) = %v, want %v", tt.patterns, tt.repo, got, tt.want)
		}
	}
}

func TestDestinationPermitted(t *testing.T) {
	d := func(server, name, ns string) any {
		m := map[string]any{"namespace": ns}
		if server != "" {
			m["server"] = server
		}
		if name != "" {
			m["name"] = name
		}
		return m
	}
	const in = "https://kubernetes.default.svc"
	tests := []struct {
		dests            []any
		server, name, ns string
		want             bool
	}{
		{[]any{d(in, "", "web")}, in, "", "web", true},
		{[]any{d(in, "", "web")}, in, "", "db", false},
		{[]any{d(in, "", "team-*")}, in, "", "team-blue", true},
		{[]any{d("*", "", "*")}, "https://other", "", "x", true},
		{[]any{d("", "prod", "web")}, "", "prod", "web", true},
		{[]any{d("", "prod", "web")}, in, "", "web", false}, // a name does not match a server
		{[]any{d(in, "", "*"), d(in, "", "!kube-system")}, in, "", "kube-system", false},
		{[]any{d(in, "", "!kube-system")}, in, "", "web", true}, // a denial matches everything else
		{[]any{d(in, "", "web")}, in, "", "", false},            // cluster-scoped: "" must be permitted too
		{nil, in, "", "web", false},
	}
	for _, tt := range tests {
		if got := destinationPermitted(tt.dests, tt.server, tt.name, tt.ns); got != tt.want {
			t.Errorf("destinationPermitted(%v, %q, %q, %q) = %v, want %v", tt.dests, tt.server, tt.name, tt.ns, got, tt.want)
		}
	}
}

func TestNamespacePermitted(t *testing.T) {
	tests := []struct {
		patterns []string
		ns       string
		want     bool
	}{
		{[]string{"observability"}, "observability", true},
		{[]string{"team-*"}, "team-blue", true},
		{[]string{"/^obs-[a-z]+$/"}, "obs-payments", true},
		{[]string{"/^obs-[a-z]+$/"}, "obs-2", false},
		{nil, "observability", false},
	}
	for _, tt := range tests {
		if got := namespacePermitted(tt.patterns, tt.ns); got != tt.want {
			t.Errorf("namespacePermitted(%q, %q) = %v, want %v", tt.patterns, tt.ns, got, tt.want)
		}
	}
}

func TestKindPermitted(t *testing.T) {
	gk := func(g, k string) any { return map[string]any{"group": g, "kind": k} }
	spec := map[string]any{
		"clusterResourceWhitelist":   []any{gk("", "Namespace"), gk("rbac.authorization.k8s.io", "Cluster*")},
		"clusterResourceBlacklist":   []any{gk("rbac.authorization.k8s.io", "ClusterRoleBinding")},
		"namespaceResourceBlacklist": []any{gk("", "ResourceQuota")},
	}
	for _, tt := range []struct {
		group, kind string
		want        bool
	}{
		{"", "Namespace", true},
		{"rbac.authorization.k8s.io", "ClusterRole", true},
		{"rbac.authorization.k8s.io", "ClusterRoleBinding", false},
		{"apiextensions.k8s.io", "CustomResourceDefinition", false},
	} {
		if got := clusterKindPermitted(spec, tt.group, tt.kind); got != tt.want {
			t.Errorf("clusterKindPermitted(%q, %q) = %v, want %v", tt.group, tt.kind, got, tt.want)
		}
	}
	if namespacedKindPermitted(spec, "", "ResourceQuota") || !namespacedKindPermitted(spec, "apps", "Deployment") {
		t.Error("namespace blacklist not applied")
	}
	white := map[string]any{"namespaceResourceWhitelist": []any{gk("apps", "*")}}
	if !namespacedKindPermitted(white, "apps", "Deployment") || namespacedKindPermitted(white, "", "ConfigMap") {
		t.Error("namespace whitelist not applied")
	}
}

func TestLiteralSecret(t *testing.T) {
	tests := []struct {
		key  string
		v    any
		want string
	}{
		{"password", "hunter2", "a password"},
		{"adminPassword", "x", "a password"},
		{"GF_DATABASE_PASSWORD", "x", "a password"},
		{"apiKey", "x", "an API key"},
		{"secret_access_key", "x", "a secret access key"},
		{"clientSecret", "x", "a client secret"},
		{"existingSecret", "db-auth", ""},
		{"passwordKey", "password", ""},
		{"tokenSecretName", "t", ""},
		{"useSecret", true, ""},
		{"password", "", ""},
		{"password", "${AWS_SECRET}", ""},
		{"password", "os.environ/DB_PASSWORD", ""},
		{"password", "$__env{GF_PASSWORD}", ""},
		{"password", "<from the cluster: db.status.password>", ""},
		{"image", "AKIAIOSFODNN7EXAMPLE", "a credential (AKIA...)"},
		{"note", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "a credential (ghp_...)"},
		{"tls", "-----BEGIN RSA PRIVATE KEY-----\nMII...", "a private key (-----BEGIN RSA PRIVATE KEY-----)"},
		{"replicas", int64(3), ""},
		{"host", "db.example.com", ""},
	}
	for _, tt := range tests {
		if got := literalSecret(tt.key, tt.v); got != tt.want {
			t.Errorf("literalSecret(%q, %v) = %q, want %q", tt.key, tt.v, got, tt.want)
		}
	}
}
