package verify

import "testing"

// TestCredentialFormats has a case per format the lint knows whatever the
// key, and the values that look like one and are not.
func TestCredentialFormats(t *testing.T) {
	const jwtSample = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
	tests := []struct {
		key, value, want string
	}{
		// A password in a URL, where the value is a connection string
		// or a repository.
		{"url", "https://ci:s3cr3t@git.example.com/team/repo.git", "a password in a URL (https://ci:****@git.example.com)"},
		{"DATABASE_URL", "postgres://app:p@ss@db.internal:5432/app?sslmode=require", "a password in a URL (postgres://app:****@db.internal:5432)"},
		{"dsn", "connect to redis://:hunter2@cache:6379/0 at start", "a password in a URL (redis://:****@cache:6379)"},
		// A JSON Web Token, alone or in a header.
		{"serviceAccountToken", jwtSample, "a JSON Web Token (eyJ...)"},
		{"headers", "Authorization: Bearer " + jwtSample, "a JSON Web Token (eyJ...)"},
		// Private keys in PEM.
		{"tls", "-----BEGIN PRIVATE KEY-----\nMIIEvQ...", "a private key (-----BEGIN PRIVATE KEY-----)"},
		{"key", "-----BEGIN EC PRIVATE KEY-----\nMHcC...", "a private key (-----BEGIN EC PRIVATE KEY-----)"},
		{"key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF...", "a private key (-----BEGIN ENCRYPTED PRIVATE KEY-----)"},
		{"deployKey", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl...", "a private key (-----BEGIN OPENSSH PRIVATE KEY-----)"},
		{"signing", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQ...", "a private key (-----BEGIN PGP PRIVATE KEY BLOCK-----)"},

		// Not credentials: references, a user without a password,
		// placeholders, and the public halves.
		{"existingSecret", "db-auth", ""},
		{"password", "${DB_PASSWORD}", ""},
		{"url", "https://ci:${GIT_TOKEN}@git.example.com/team/repo.git", ""},
		{"url", "postgres://app:$(DB_PASSWORD)@db:5432/app", ""},
		{"url", "postgres://app:$DB_PASSWORD@db:5432/app", ""},
		{"url", "postgres://app:{{ .Values.db.password }}@db/app", ""},
		{"url", "mysql://root:%s@db:3306/app", ""},
		{"url", "https://user:<password>@host.example.com/", ""},
		{"url", "https://user:****@host.example.com/", ""},
		{"url", "https://user:xxx@host.example.com/", ""},
		{"url", "https://user:password@host.example.com/", ""},
		{"url", "https://user:@host.example.com/", ""},
		{"url", "https://git@git.example.com/team/repo.git", ""},
		{"url", "ssh://git@git.example.com:22/team/repo.git", ""},
		{"url", "https://host.example.com:8443/path?q=a:b@c", ""},
		{"endpoint", "http://loki.obs.svc:3100/loki/api/v1/push", ""},
		{"note", "eyJ is how a JSON object starts in base64", ""},
		{"cert", "-----BEGIN CERTIFICATE-----\nMIID...", ""},
		{"key", "-----BEGIN PUBLIC KEY-----\nMIIB...", ""},
	}
	for _, tt := range tests {
		if got := literalSecret(tt.key, tt.value); got != tt.want {
			t.Errorf("literalSecret(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
}
