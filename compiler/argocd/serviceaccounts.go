package argocd

import (
	"fmt"
	"strings"
)

// DestinationServiceAccount is an entry of an AppProject's
// destinationServiceAccounts: globs of a destination's server and
// namespace, and the service account Argo CD impersonates to sync there.
type DestinationServiceAccount struct {
	Server, Namespace, DefaultServiceAccount string
}

// serviceAccountDisallowedCharSet is app_project_types.go's and
// util/settings/impersonation.go's (Argo CD).
const serviceAccountDisallowedCharSet = "!*[]{}\\/"

// ImpersonationEnabledKey is the argocd-cm key that makes Argo CD sync as
// the projects' destination service accounts (Argo CD 2.13 and later), and
// ImpersonationEnforcedKey the one that makes an Application whose project
// names none for its destination fail to sync (default true).
const (
	ImpersonationEnabledKey  = "application.sync.impersonation.enabled"
	ImpersonationEnforcedKey = "application.sync.impersonation.enforced"
)

// ServiceAccountToImpersonate is util/settings.DeriveServiceAccountToImpersonate
// of Argo CD: the service account (system:serviceaccount:<ns>:<name>)
// of the first entry whose server glob matches the destination cluster's
// server and whose namespace glob matches the destination namespace; ""
// where none does. The service account's namespace is the destination's,
// or the Application's where the destination has none, unless the entry
// gives "<namespace>:<name>".
func ServiceAccountToImpersonate(accounts []DestinationServiceAccount, appNamespace, destServer, destNamespace string) (string, error) {
	saNamespace := destNamespace
	if saNamespace == "" {
		saNamespace = appNamespace
	}
	for _, item := range accounts {
		server, err := matchWithError(item.Server, destServer)
		if err != nil {
			return "", fmt.Errorf("invalid glob pattern for destination server: %w", err)
		}
		namespace, err := matchWithError(item.Namespace, destNamespace)
		if err != nil {
			return "", fmt.Errorf("invalid glob pattern for destination namespace: %w", err)
		}
		if server && namespace {
			switch {
			case strings.Trim(item.DefaultServiceAccount, " ") == "" || strings.ContainsAny(item.DefaultServiceAccount, serviceAccountDisallowedCharSet):
				return "", fmt.Errorf("default service account contains invalid chars '%s'", item.DefaultServiceAccount)
			case strings.Contains(item.DefaultServiceAccount, ":"):
				return "system:serviceaccount:" + item.DefaultServiceAccount, nil
			}
			return fmt.Sprintf("system:serviceaccount:%s:%s", saNamespace, item.DefaultServiceAccount), nil
		}
	}
	return "", nil
}
