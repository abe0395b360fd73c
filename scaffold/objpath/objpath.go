// Package objpath reads and writes a value of a JSON object (a custom
// resource's spec) by a field's path: its segments, each a key, or a key
// with ListSuffix for a list of objects, which the path enters by its first
// object (users[].name).
package objpath

import "strings"

// ListSuffix marks a segment of a field's name that is a list of objects:
// users[].name is the name of each object of users.
const ListSuffix = "[]"

// Value is the value at path in m, and whether it is there.
func Value(m map[string]any, path []string) (any, bool) {
	m, ok := parent(m, path)
	if !ok {
		return nil, false
	}
	v, ok := m[path[len(path)-1]]
	return v, ok
}

// Delete removes the value at path from m, and reports whether it was
// there.
func Delete(m map[string]any, path []string) bool {
	m, ok := parent(m, path)
	if !ok {
		return false
	}
	_, ok = m[path[len(path)-1]]
	delete(m, path[len(path)-1])
	return ok
}

// Set puts v at path in m, making the objects (and lists of one object) on
// the way.
func Set(m map[string]any, path []string, v any) {
	for _, seg := range path[:len(path)-1] {
		next, ok := step(m, seg)
		if !ok {
			next = map[string]any{}
			if list, isList := strings.CutSuffix(seg, ListSuffix); isList {
				m[list] = []any{next}
			} else {
				m[seg] = next
			}
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// parent is the object that holds the last segment of path.
func parent(m map[string]any, path []string) (map[string]any, bool) {
	for _, seg := range path[:len(path)-1] {
		next, ok := step(m, seg)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// step is the object a segment of a path names in m: a nested object, or
// for a list of objects (users[]) its first object.
func step(m map[string]any, seg string) (map[string]any, bool) {
	list, isList := strings.CutSuffix(seg, ListSuffix)
	if !isList {
		next, ok := m[seg].(map[string]any)
		return next, ok
	}
	items, _ := m[list].([]any)
	if len(items) == 0 {
		return nil, false
	}
	next, ok := items[0].(map[string]any)
	return next, ok
}
