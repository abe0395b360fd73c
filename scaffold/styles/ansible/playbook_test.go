package ansible_test

// existingPlaybook is a playbook written before opctl: it reads the
// variables the operator passes.
const existingPlaybook = `---
- name: Record what to back up
  hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Write the backup's ConfigMap
      kubernetes.core.k8s:
        state: present
        definition:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: "{{ ansible_operator_meta.name }}-backup"
            namespace: "{{ ansible_operator_meta.namespace }}"
          data:
            target: "{{ target }}"
`
