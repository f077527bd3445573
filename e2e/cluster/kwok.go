package cluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kwokStages are the stage files of kwok's module that make a node Ready
// and keep it so, take a pod through its life at once, and provision and
// bind a volume for each claim of kwok's storage class: kwok's binary has
// none of its own (its kustomize/stage/*/fast are what kwokctl installs).
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/node/heartbeat/node-heartbeat.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-complete.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
	"kustomize/stage/volume/fast/pvc-provision.yaml",
	"kustomize/stage/volume/fast/pv-bind.yaml",
	"kustomize/stage/volume/fast/pvc-delete.yaml",
	"kustomize/stage/volume/fast/pv-delete.yaml",
}

// kwokStorageClass is the storage class of kwok's volume stages, the
// cluster's default, so that claims with no class are bound too.
const kwokStorageClass = "kustomize/stage/volume/fast/storage-class.yaml"

// nodeName is the cluster's one node, which kwok plays.
const nodeName = "kwok-node-0"

// nodeResources are the capacity and allocatable resources of the node
// (kwok's node-initialize stage keeps what the node says).
var nodeResources = map[string]any{
	"cpu": "1k", "memory": "1Ti", "pods": "1M",
	"ephemeral-storage": "10Ti", "nvidia.com/gpu": "64",
}

var nodeGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// startKwok starts kwok with its stages and creates the node it manages.
func (c *Cluster) startKwok(ctx context.Context) error {
	dir, err := moduleDir(ctx, c.opts.ProgramsDir, "sigs.k8s.io/kwok")
	if err != nil {
		return err
	}
	var config bytes.Buffer
	for _, f := range kwokStages {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return fmt.Errorf("kwok's stages: %w", err)
		}
		config.WriteString("---\n")
		config.Write(data)
	}
	configPath := filepath.Join(c.Dir, "kwok-stages.yaml")
	if err := os.WriteFile(configPath, config.Bytes(), 0o644); err != nil {
		return err
	}
	if _, err := c.procs.start(c.Dir, "kwok", c.opts.Binaries.Path("kwok"), []string{
		"--kubeconfig=" + c.Kubeconfig, "--config=" + configPath,
		"--manage-all-nodes=true", "--node-ip=127.0.0.1",
	}, nil); err != nil {
		return err
	}
	node := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Node",
		"metadata": map[string]any{
			"name": nodeName,
			"annotations": map[string]any{
				"kwok.x-k8s.io/node":           "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			"labels": map[string]any{
				"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
				"kubernetes.io/hostname": nodeName, "type": "kwok",
			},
		},
		// What it offers pods: kwok's own defaults (cpu, memory, pods),
		// and what a kubelet reports beside them that kwok's leave out,
		// ephemeral storage, and GPUs, as a cluster that runs models has
		// (a workload that asks for either is otherwise never scheduled).
		"status": map[string]any{"capacity": nodeResources, "allocatable": nodeResources},
	}}
	if _, err := c.Dynamic.Resource(nodeGVR).Create(ctx, node, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the node: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, kwokStorageClass))
	if err != nil {
		return err
	}
	class, err := Decode(data)
	if err != nil {
		return err
	}
	if err := c.Apply(ctx, "", class...); err != nil {
		return err
	}
	return c.poll(ctx, "the node to be Ready", 60*time.Second, func() (bool, string, error) {
		n, err := c.Dynamic.Resource(nodeGVR).Get(ctx, nodeName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error(), nil
		}
		conds, _, _ := unstructured.NestedSlice(n.Object, "status", "conditions")
		for _, cond := range conds {
			m, _ := cond.(map[string]any)
			if m["type"] == "Ready" && m["status"] == "True" {
				return true, "", nil
			}
		}
		return false, "not Ready", nil
	})
}

// poll calls check until it says done, a program of the cluster exits,
// or timeout passes; the last note is in the error.
func (c *Cluster) poll(ctx context.Context, what string, timeout time.Duration, check func() (done bool, note string, err error)) error {
	deadline := time.Now().Add(timeout)
	for {
		done, note, err := check()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if err := c.Exited(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: waited %s for %s: %s", c.Name, timeout, what, note)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
