package cluster

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"github.com/platc/platc/compiler/upstream"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// Options describe a cluster to start.
type Options struct {
	// Name names the cluster in progress lines and reports.
	Name string
	// Dir is the cluster's data folder: etcd's data, keys, logs. It is
	// made if missing and should be empty.
	Dir string
	// Binaries are the built programs.
	Binaries Binaries
	// ProgramsDir is the programs' module: the upstream modules' files
	// (CRDs, Argo CD's configuration, kwok's stages) are read from the
	// module cache, at the versions of its build list.
	ProgramsDir string
	// ArgoCDNamespace is where Argo CD is installed (default
	// DefaultArgoCDNamespace): the namespace of the kubeconfig's
	// context, which Argo CD's components run in out of cluster.
	ArgoCDNamespace string
	// Log receives progress lines.
	Log io.Writer
	// Nice is the scheduling priority of the cluster's programs (0, as
	// this process; 1 to 19, lower): control planes that share the
	// machine with a longer delivery leave it the CPU it needs.
	Nice int
}

// A Cluster is a running control plane on loopback: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok (one fake node whose
// pods become ready), and whatever Argo CD and kro components were
// started on it.
type Cluster struct {
	Name string
	Dir  string
	// Kubeconfig is the file of an admin's kubeconfig (group
	// system:masters), whose context's namespace is argocd.
	Kubeconfig string
	Config     *rest.Config
	Dynamic    dynamic.Interface
	Mapper     meta.ResettableRESTMapper

	// Server is the API server's URL, Token an admin's bearer token and
	// CA the API server's certificate (PEM), for a client that is not
	// given the kubeconfig (a cluster registered in Argo CD).
	Server, Token string
	CA            []byte

	opts  Options
	procs processes
}

// DefaultArgoCDNamespace is the namespace of Argo CD's installation where
// Options name none, as its manifests and platc's root Applications have
// it by default.
const DefaultArgoCDNamespace = "argocd"

// Start starts a control plane. On error, what was started is stopped.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c := &Cluster{Name: opts.Name, Dir: dir, opts: opts}
	c.procs.nice = opts.Nice
	if err := c.start(ctx); err != nil {
		// Every return above names no cluster: stop what was started
		// here, not through the result.
		c.Stop()
		return nil, err
	}
	return c, nil
}

// start starts the cluster's programs in order, each once the one before
// it answers.
func (c *Cluster) start(ctx context.Context) error {
	opts, dir := c.opts, c.Dir
	start := time.Now()
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdPort, peerPort, apiPort := ports[0], ports[1], ports[2]

	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdPort)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	if _, err := c.procs.start(dir, "etcd", opts.Binaries.Path("server"), []string{
		"--name=default", "--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=default=" + peerURL,
		// A test's cluster is thrown away: no fsync.
		"--unsafe-no-fsync", "--listen-metrics-urls=",
	}, nil); err != nil {
		return err
	}
	if err := c.waitHTTP(ctx, "etcd", etcdURL+"/health", nil, 60*time.Second); err != nil {
		return err
	}

	token, err := c.writeCredentials()
	if err != nil {
		return err
	}
	apiURL := "https://127.0.0.1:" + strconv.Itoa(apiPort)
	if _, err := c.procs.start(dir, "kube-apiserver", opts.Binaries.Path("kube-apiserver"), []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(apiPort),
		"--cert-dir=" + filepath.Join(dir, "pki"),
		"--token-auth-file=" + filepath.Join(dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(dir, "sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=10.0.0.0/24",
		// The default Service's endpoint would be the loopback
		// address, which the API server refuses as an endpoint.
		"--endpoint-reconciler-type=none",
		"--allow-privileged=true",
	}, nil); err != nil {
		return err
	}
	caFile := filepath.Join(dir, "pki", "apiserver.crt")
	if err := c.waitHTTP(ctx, "kube-apiserver", apiURL+"/readyz", map[string]string{"Authorization": "Bearer " + token}, 120*time.Second); err != nil {
		return err
	}
	c.Server, c.Token = apiURL, token
	if c.CA, err = os.ReadFile(caFile); err != nil {
		return err
	}
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, kubeconfig(apiURL, caFile, token, c.ArgoCDNamespace()), 0o600); err != nil {
		return err
	}
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return err
	}
	c.Config.QPS, c.Config.Burst = 200, 400
	if c.Dynamic, err = dynamic.NewForConfig(c.Config); err != nil {
		return err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return err
	}
	c.Mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))

	kube := []string{"--kubeconfig=" + c.Kubeconfig, "--leader-elect=false", "--secure-port=0"}
	if _, err := c.procs.start(dir, "kube-controller-manager", opts.Binaries.Path("kube-controller-manager"), append(kube,
		"--service-account-private-key-file="+filepath.Join(dir, "sa.key"),
		"--root-ca-file="+caFile,
		"--use-service-account-credentials=false",
	), nil); err != nil {
		return err
	}
	if _, err := c.procs.start(dir, "kube-scheduler", opts.Binaries.Path("kube-scheduler"), kube, nil); err != nil {
		return err
	}
	if err := c.startKwok(ctx); err != nil {
		return err
	}
	fmt.Fprintf(opts.Log, "e2e: %s: Kubernetes %s on %s, ready in %s\n", c.Name, upstream.Kubernetes, apiURL, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// ArgoCDNamespace is the namespace of Argo CD's installation.
func (c *Cluster) ArgoCDNamespace() string {
	if c.opts.ArgoCDNamespace == "" {
		return DefaultArgoCDNamespace
	}
	return c.opts.ArgoCDNamespace
}

// Stop stops every process of the cluster, the last started first. Its
// data folder stays, for the logs.
func (c *Cluster) Stop() {
	// A test's cluster is thrown away: a short grace is enough for the
	// logs, which each program writes as it goes.
	c.procs.stop(2 * time.Second)
}

// PIDs are the process ids of every program the cluster started.
func (c *Cluster) PIDs() []int { return c.procs.pids() }

// Exited reports a program of the cluster that ended, with its log's end.
func (c *Cluster) Exited() error { return c.procs.exited() }

// writeCredentials writes the service accounts' key pair and a token
// file with one admin (group system:masters), and returns the token.
func (c *Cluster) writeCredentials() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", err
	}
	files := map[string][]byte{
		"sa.key": pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		"sa.pub": pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}),
	}
	var raw [16]byte
	rand.Read(raw[:])
	token := hex.EncodeToString(raw[:])
	files["tokens.csv"] = []byte(token + `,admin,admin,"system:masters"` + "\n")
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(c.Dir, name), data, 0o600); err != nil {
			return "", err
		}
	}
	return token, nil
}

func kubeconfig(server, caFile, token, namespace string) []byte {
	return []byte(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: ` + server + `
    certificate-authority: ` + caFile + `
users:
- name: admin
  user:
    token: ` + token + `
contexts:
- name: e2e
  context:
    cluster: e2e
    user: admin
    namespace: ` + namespace + `
current-context: e2e
`)
}

// waitHTTP waits until url answers 200, or the program that serves it
// exits, or timeout passes.
func (c *Cluster) waitHTTP(ctx context.Context, what, url string, header map[string]string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		// The API server's certificate is made at its start; readiness
		// is all this asks of it.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	deadline := time.Now().Add(timeout)
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
		} else {
			last = err.Error()
		}
		if err := c.Exited(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %s", what, timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// moduleDir is the folder, in the module cache, of an upstream module of
// the programs' build list.
func moduleDir(ctx context.Context, moduleDir, path string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", path)
	cmd.Env = goEnv()
	cmd.Dir = moduleDir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("go list -m %s: %w", path, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return "", fmt.Errorf("module %s is not downloaded (run go mod download in %s)", path, moduleDir)
	}
	return dir, nil
}
