package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"
)

// explainDecode turns the error of a kind's Decode of obj into one that
// names the field's whole path (spec.tfReplicaSpecs.Worker.template...):
// the unstructured converter leaves out map keys, and says nothing of where
// a value of the wrong type is. It decodes obj again as JSON, strictly, into
// the kind's type, and narrows down to the value that fails. When that finds
// nothing, Decode's error is kept.
func explainDecode(kind Kind, obj *unstructured.Unstructured, decodeErr error) error {
	skeleton := &unstructured.Unstructured{}
	skeleton.SetGroupVersionKind(obj.GroupVersionKind())
	skeleton.SetName(obj.GetName())
	typed, err := kind.Decode(skeleton)
	if err != nil || typed == nil {
		return decodeErr
	}
	t := reflect.TypeOf(typed)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return decodeErr
	}
	strictErrs, err := sigsjson.UnmarshalStrict(data, reflect.New(t).Interface())
	switch {
	case err != nil:
		path, located := locate("", obj.Object, t)
		var typeErr *json.UnmarshalTypeError
		if errors.As(located, &typeErr) {
			err = fmt.Errorf("%s: got a %s, want %s", path, typeErr.Value, typeErr.Type)
		} else {
			err = fmt.Errorf("%s: %w", path, located)
		}
	case len(strictErrs) > 0:
		// An unknown field: sigs.k8s.io/json's message holds its path.
		err = strictErrs[0]
	default:
		return decodeErr
	}
	return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
}

// locate finds where decoding the JSON value v into a t fails: the path of
// the innermost value that fails, and its error. It only looks for errors
// of values (wrong types, bad quantities), not for unknown fields.
func locate(path string, v any, t reflect.Type) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return path, err
	}
	if _, err = sigsjson.UnmarshalStrict(data, reflect.New(t).Interface()); err == nil {
		return "", nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			var ft reflect.Type
			switch t.Kind() {
			case reflect.Struct:
				ft = jsonField(t, k)
			case reflect.Map:
				ft = t.Elem()
			}
			if ft == nil {
				continue
			}
			if p, e := locate(joinPath(path, k), v[k], ft); e != nil {
				return p, e
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, item := range v {
				if p, e := locate(fmt.Sprintf("%s[%d]", path, i), item, t.Elem()); e != nil {
					return p, e
				}
			}
		}
	}
	return path, err
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonField is the type of struct t's field that JSON calls name, looking
// into inlined (embedded) structs; nil when there is none.
func jsonField(t reflect.Type, name string) reflect.Type {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		tagName, opts, _ := strings.Cut(tag, ",")
		if tagName == name {
			return f.Type
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && tagName == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
			if inner := jsonField(ft, name); inner != nil {
				return inner
			}
		} else if tagName == "" && f.IsExported() && f.Name == name {
			return f.Type
		}
	}
	return nil
}
