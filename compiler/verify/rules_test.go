package verify

import "testing"

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
