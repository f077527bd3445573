// Package versions is what platc says of the chart versions a platform
// runs: the matrix of charts and environments (platc versions), as text,
// JSON and Markdown; the newer versions a chart repository offers
// (platc outdated), from its index; and how Renovate finds each pin. It
// reads a decoded spec and data it is given; it opens no file and no
// connection (the CLI does).
package versions
