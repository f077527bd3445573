package kro

// str, obj, arr and prop build test schemas tersely.
func str() *Schema              { return &Schema{Type: "string"} }
func boolean() *Schema          { return &Schema{Type: "boolean"} }
func arr(items *Schema) *Schema { return &Schema{Type: "array", Items: items} }
func obj(props map[string]*Schema) *Schema {
	return &Schema{Type: "object", Properties: props}
}

// bucketSchema is the schema of a small ObjectBucket primitive (a Crossplane
// v2 style claim): spec.region in, bucket name, endpoint, region and a
// credentials secret reference out.
func bucketSchema() *Schema {
	return obj(map[string]*Schema{
		"apiVersion": str(),
		"kind":       str(),
		"metadata":   {Type: "object"},
		"spec":       obj(map[string]*Schema{"region": str(), "versioning": boolean()}),
		"status": obj(map[string]*Schema{
			"bucketName":           str(),
			"endpoint":             str(),
			"region":               str(),
			"credentialsSecretRef": obj(map[string]*Schema{"name": str(), "key": str()}),
		}),
	})
}

// applicationSchema is a small part of Argo CD's Application schema.
func applicationSchema() *Schema {
	return obj(map[string]*Schema{
		"apiVersion": str(),
		"kind":       str(),
		"metadata":   {Type: "object"},
		"spec": obj(map[string]*Schema{
			"project": str(),
			"sources": arr(obj(map[string]*Schema{
				"repoURL":        str(),
				"chart":          str(),
				"targetRevision": str(),
				"ref":            str(),
				"helm": obj(map[string]*Schema{
					"valueFiles":              arr(str()),
					"valuesObject":            {Type: "object", PreserveUnknown: true},
					"ignoreMissingValueFiles": boolean(),
				}),
			})),
			"destination": obj(map[string]*Schema{"server": str(), "namespace": str()}),
			"syncPolicy": obj(map[string]*Schema{
				"automated":   obj(map[string]*Schema{"prune": boolean(), "selfHeal": boolean()}),
				"syncOptions": arr(str()),
			}),
		}),
		"status": obj(map[string]*Schema{
			"health": obj(map[string]*Schema{"status": str()}),
			"sync":   obj(map[string]*Schema{"status": str()}),
		}),
	})
}

// validRGD is an ObservabilityStack: an ObjectBucket for Loki, created when
// spec.loki.enabled, and the Argo CD Application of Loki wired to it.
func validRGD() *RGD {
	return &RGD{
		APIVersion: "v1alpha1",
		Kind:       "ObservabilityStack",
		Spec: map[string]any{
			"team":   "string | required=true",
			"region": `string | default="eu-west-1"`,
			"loki":   map[string]any{"enabled": "boolean | default=true"},
			"values": map[string]any{
				"repoURL":  "string | required=true",
				"revision": `string | default="main"`,
				"prefix":   "string",
			},
		},
		Status: map[string]any{
			"lokiBucket": "${lokiBucket.status.bucketName}",
			"ready":      `${loki.status.health.status == "Healthy"}`,
		},
		Resources: []Resource{
			{
				ID: "lokiBucket",
				Template: map[string]any{
					"apiVersion": "storage.platform.example.com/v1alpha1",
					"kind":       "ObjectBucket",
					"metadata": map[string]any{
						"name":      "${schema.metadata.name}-loki",
						"namespace": "${schema.metadata.namespace}",
					},
					"spec": map[string]any{"region": "${schema.spec.region}", "versioning": true},
				},
				IncludeWhen: []string{"${schema.spec.loki.enabled}"},
				ReadyWhen:   []string{`${lokiBucket.status.bucketName != ""}`},
				Schema:      bucketSchema(),
			},
			{
				ID: "loki",
				Template: map[string]any{
					"apiVersion": "argoproj.io/v1alpha1",
					"kind":       "Application",
					"metadata": map[string]any{
						"name":      "${schema.spec.team}-loki",
						"namespace": "argocd",
						"labels":    map[string]any{"app.kubernetes.io/part-of": "${schema.metadata.name}"},
					},
					"spec": map[string]any{
						"project": "${schema.spec.team}",
						"sources": []any{
							map[string]any{
								"repoURL":        "https://grafana.github.io/helm-charts",
								"chart":          "loki",
								"targetRevision": "6.29.0",
								"helm": map[string]any{
									"valueFiles":              []any{"$values/${schema.spec.values.prefix}/loki.yaml"},
									"ignoreMissingValueFiles": true,
									"valuesObject": map[string]any{
										"loki": map[string]any{"storage": map[string]any{
											"bucketNames": map[string]any{"chunks": "${lokiBucket.status.bucketName}"},
											"s3": map[string]any{
												"endpoint": "${lokiBucket.status.endpoint}",
												"region":   "${lokiBucket.status.region}",
												"secret":   "${lokiBucket.status.credentialsSecretRef}",
											},
										}},
										"replicas": 2,
									},
								},
							},
							map[string]any{
								"repoURL":        "${schema.spec.values.repoURL}",
								"targetRevision": "${schema.spec.values.revision}",
								"ref":            "values",
							},
						},
						"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "observability"},
						"syncPolicy": map[string]any{
							"automated":   map[string]any{"prune": true, "selfHeal": true},
							"syncOptions": []any{"CreateNamespace=true"},
						},
					},
				},
				ReadyWhen: []string{`${loki.status.health.status == "Healthy"}`},
				Schema:    applicationSchema(),
			},
		},
	}
}
