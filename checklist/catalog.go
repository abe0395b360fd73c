package checklist

import (
	"strings"
	"unicode"
)

// Candidate is a well-maintained operator a team can run instead of
// building one.
type Candidate struct {
	Software string `json:"software"`
	Project  string `json:"project"`
	Site     string `json:"site"`
}

type catalogEntry struct {
	keywords []string
	Candidate
}

func catalog() []catalogEntry {
	return []catalogEntry{
		{[]string{"postgres", "pg"}, Candidate{"PostgreSQL", "CloudNativePG", "https://cloudnative-pg.io"}},
		{[]string{"postgres", "pg"}, Candidate{"PostgreSQL", "Zalando Postgres Operator", "https://github.com/zalando/postgres-operator"}},
		{[]string{"mysql", "mariadb"}, Candidate{"MySQL", "MySQL Operator for Kubernetes", "https://dev.mysql.com/doc/mysql-operator/en/"}},
		{[]string{"mysql", "percona"}, Candidate{"MySQL", "Percona Operator for MySQL", "https://docs.percona.com/percona-operator-for-mysql/"}},
		{[]string{"kafka"}, Candidate{"Kafka", "Strimzi", "https://strimzi.io"}},
		{[]string{"redis", "valkey"}, Candidate{"Redis", "Redis Operator (OT-Container-Kit)", "https://github.com/OT-CONTAINER-KIT/redis-operator"}},
		{[]string{"prometheus", "monitoring", "alertmanager", "metrics"}, Candidate{"Prometheus / monitoring", "Prometheus Operator", "https://prometheus-operator.dev"}},
		{[]string{"tls", "certificate", "cert", "acme", "letsencrypt"}, Candidate{"TLS certificates", "cert-manager", "https://cert-manager.io"}},
		{[]string{"etcd"}, Candidate{"etcd", "etcd-operator", "https://github.com/etcd-io/etcd-operator"}},
		{[]string{"rabbitmq", "rabbit", "amqp"}, Candidate{"RabbitMQ", "RabbitMQ Cluster Operator", "https://www.rabbitmq.com/kubernetes/operator/operator-overview"}},
		{[]string{"elasticsearch", "elastic", "kibana"}, Candidate{"Elasticsearch", "Elastic Cloud on Kubernetes (ECK)", "https://www.elastic.co/guide/en/cloud-on-k8s/current/index.html"}},
	}
}

// Lookup returns the catalog's operators for the software the user named:
// an entry matches when a word of the text starts with one of its keywords
// ("PostgreSQL 16" matches postgres, "upgrade" does not match pg).
func Lookup(software string) []Candidate {
	words := strings.FieldsFunc(strings.ToLower(software), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	var out []Candidate
	for _, e := range catalog() {
		if matches(words, e.keywords) {
			out = append(out, e.Candidate)
		}
	}
	return out
}

func matches(words, keywords []string) bool {
	for _, w := range words {
		for _, k := range keywords {
			if strings.HasPrefix(w, k) {
				return true
			}
		}
	}
	return false
}
