package main

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// keyFields name the struct fields that identify an element of a response array. Elements are
// labelled by them ("Topics[Topic=t].Partitions[Partition=0]") instead of by position, so two
// brokers that answer in different orders still line up, and the allow-list can name elements.
var keyFields = []string{
	"ApiKey", "Topic", "Name", "Partition", "PartitionIndex", "Group", "GroupID", "Key", "Coordinator",
	"TransactionalID", "ResourceType", "ResourceName", "ConfigName", "Dir", "MemberID",
	"ListenerName", "Listener", "Feature", "NodeID",
}

// flattener turns a kmsg response into path=value pairs, normalizing the values that are not
// expected to be equal between two brokers. Ids are replaced by placeholders numbered in the
// order this broker's answers first show them, so "the same member id as before" still compares.
type flattener struct {
	ids map[string]map[string]string // id kind -> raw value -> placeholder
}

func newFlattener() *flattener { return &flattener{ids: map[string]map[string]string{}} }

func (f *flattener) flatten(v any) map[string]string {
	out := map[string]string{}
	f.walk(out, "", "", reflect.ValueOf(v))
	return out
}

func (f *flattener) walk(out map[string]string, path, field string, v reflect.Value) {
	if !v.IsValid() {
		out[path] = "null"
		return
	}
	if normalized, ok := f.normalize(field, v); ok {
		out[path] = normalized
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			out[path] = "null"
			return
		}
		f.walk(out, path, field, v.Elem())
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Name == "Version" || sf.Name == "UnknownTags" {
				continue
			}
			f.walk(out, join(path, sf.Name), sf.Name, v.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			out[path] = bytesValue(v)
			return
		}
		if v.Kind() == reflect.Slice && v.IsNil() {
			out[path] = "null"
			return
		}
		out[path+".len"] = strconv.Itoa(v.Len())
		// Elements are walked in label order, not the broker's: placeholders are numbered by
		// first appearance, and arrays such as ListTransactions' come in no set order.
		labels := f.elementLabels(v)
		order := make([]int, len(labels))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return labels[order[a]] < labels[order[b]] })
		for _, i := range order {
			f.walk(out, path+"["+labels[i]+"]", field, v.Index(i))
		}
	case reflect.String:
		out[path] = strconv.Quote(v.String())
	default:
		out[path] = fmt.Sprint(v.Interface())
		if strings.HasSuffix(field, "ErrorCode") && v.CanInt() && v.Int() != 0 {
			out[path] += " " + errorName(int16(v.Int()))
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func bytesValue(v reflect.Value) string {
	b := make([]byte, v.Len())
	reflect.Copy(reflect.ValueOf(b), v)
	if v.Kind() == reflect.Slice && v.IsNil() {
		return "null"
	}
	if len(b) > 64 {
		return fmt.Sprintf("%d bytes %x..", len(b), b[:64])
	}
	return hex.EncodeToString(b)
}

func errorName(code int16) string {
	if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return e.Message
	}
	return "UNKNOWN"
}

// elementLabels labels each element of an array by its key fields (after normalization), with
// "#n" added to repeated labels; arrays of elements without key fields are labelled by index.
func (f *flattener) elementLabels(v reflect.Value) []string {
	labels := make([]string, v.Len())
	elem := v.Type().Elem()
	for elem.Kind() == reflect.Pointer {
		elem = elem.Elem()
	}
	var keys []string
	if elem.Kind() == reflect.Struct {
		for _, k := range keyFields {
			if _, ok := elem.FieldByName(k); ok {
				keys = append(keys, k)
			}
		}
	}
	seen := map[string]int{}
	for i := range labels {
		if len(keys) == 0 {
			labels[i] = strconv.Itoa(i)
			continue
		}
		e := reflect.Indirect(v.Index(i))
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			value := f.flatten(e.FieldByName(k).Interface())[""]
			if n, ok := f.normalize(k, e.FieldByName(k)); ok {
				value = n
			}
			parts = append(parts, k+"="+strings.Trim(value, `"`))
		}
		label := strings.Join(parts, ",")
		seen[label]++
		if seen[label] > 1 {
			label += "#" + strconv.Itoa(seen[label])
		}
		labels[i] = label
	}
	return labels
}

// sortedPaths returns the union of both flattenings' paths in order.
func sortedPaths(a, b map[string]string) []string {
	var paths []string
	for p := range a {
		paths = append(paths, p)
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths
}
