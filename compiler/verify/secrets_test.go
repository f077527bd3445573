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

// TestSecretNames: the lint judges values, not the names of Secrets and
// of their keys. Under a key that names a Secret as often as it holds
// one, a value written as a name is that name; Argo CD's references to a
// Secret's key are references; a credential stays one.
func TestSecretNames(t *testing.T) {
	tests := []struct {
		key, value, want string
	}{
		// The name of a Secret object.
		{"tlsSecret", "web-tls", ""},
		{"imagePullSecret", "regcred", ""},
		{"secret", "db-creds.v2", ""},
		{"TLS_SECRET", "letsencrypt-prod", ""},
		// The name of a key in a Secret: an ExternalSecret's secretKey,
		// the key an existing Secret holds the password under.
		{"secretKey", "password", ""},
		{"secretKey", "AWS_SECRET_ACCESS_KEY", ""},
		{"existingSecretKey", "redis-password", ""},
		// Argo CD's references to a key of argocd-secret, or of another
		// Secret, which it replaces with the key's value.
		{"clientSecret", "$oidc.keycloak.clientSecret", ""},
		{"password", "$repo-creds:password", ""},

		// Credentials, under the same keys and others.
		{"jwtSecret", "s3cr3t-t0ken", "a secret"},
		{"sessionSecret", "Zm9vYmFyYmF6cXV4MTIz==", "a secret"},
		{"secretKey", "minio123", "a secret key"},
		{"secretKey", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "a secret key"},
		{"secret", "-leading-dash", "a secret"},
		{"clientSecret", "web-client", "a client secret"},
		{"password", "db-password", "a password"},
		{"token", "api-token", "a token"},
		{"password", "$ecret with spaces", "a password"},
	}
	for _, tt := range tests {
		if got := literalSecret(tt.key, tt.value); got != tt.want {
			t.Errorf("literalSecret(%q, %q) = %q, want %q", tt.key, tt.value, got, tt.want)
		}
	}
}
