// Package versions reports the chart versions a platform runs: the chart
// by environment matrix (platc versions), the newer versions a repository
// offers (platc outdated), and how Renovate finds each pin. It opens no
// file or connection; the CLI does.
package versions
