package service

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/vtsproject/vts/internal/search"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// SetupCommand registers the search attributes on a namespace; the start-up check names it.
const SetupCommand = "vts temporal setup"

// typeNames are the Temporal CLI's names of the attribute types (start-dev --search-attribute).
var typeNames = map[enumspb.IndexedValueType]string{
	enumspb.INDEXED_VALUE_TYPE_KEYWORD: "Keyword", enumspb.INDEXED_VALUE_TYPE_INT: "Int",
	enumspb.INDEXED_VALUE_TYPE_TEXT: "Text", enumspb.INDEXED_VALUE_TYPE_DOUBLE: "Double",
	enumspb.INDEXED_VALUE_TYPE_BOOL: "Bool", enumspb.INDEXED_VALUE_TYPE_DATETIME: "Datetime",
	enumspb.INDEXED_VALUE_TYPE_KEYWORD_LIST: "KeywordList",
}

func typeName(t enumspb.IndexedValueType) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return t.String()
}

// SearchAttributeFlags are the Temporal CLI dev server's flags that register every search
// attribute of search.Attributes as it starts.
func SearchAttributeFlags() []string {
	var flags []string
	for _, k := range search.Attributes {
		flags = append(flags, "--search-attribute", k.GetName()+"="+typeName(k.GetValueType()))
	}
	return flags
}

// missingSearchAttributes lists the attributes the namespace lacks. One registered under the
// same name with another type is an error: Temporal cannot change a type in place.
func missingSearchAttributes(ctx context.Context, c client.Client, namespace string) ([]temporal.SearchAttributeKey, error) {
	namespace = cmp.Or(namespace, client.DefaultNamespace)
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("listing the search attributes of Temporal namespace %s: %w", namespace, err)
	}
	var missing []temporal.SearchAttributeKey
	for _, k := range search.Attributes {
		have, ok := resp.GetCustomAttributes()[k.GetName()]
		switch {
		case !ok:
			missing = append(missing, k)
		case have != k.GetValueType():
			return nil, fmt.Errorf("the Temporal namespace %s has the search attribute %s as %s, and vts needs it as %s: "+
				"remove it (temporal operator search-attribute remove --name %s), then run %s",
				namespace, k.GetName(), typeName(have), typeName(k.GetValueType()), k.GetName(), SetupCommand)
		}
	}
	return missing, nil
}

func names(keys []temporal.SearchAttributeKey) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.GetName())
	}
	return out
}

// CheckSearchAttributes fails, naming SetupCommand, when the namespace lacks a search attribute
// the jobs carry: starting a job, or upserting one, would be refused by Temporal. The API and the
// worker call it at start-up, so that the service refuses to start rather than fail jobs.
func CheckSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	namespace = cmp.Or(namespace, client.DefaultNamespace)
	missing, err := missingSearchAttributes(ctx, c, namespace)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return fmt.Errorf("the Temporal namespace %s lacks the search attributes %s that jobs carry: run `%s` "+
			"(with the same TEMPORAL_* settings) to register them", namespace, strings.Join(names(missing), ", "), SetupCommand)
	}
	return nil
}

// SetUpSearchAttributes registers, through the operator service, the search attributes the
// namespace lacks, and answers lines saying what it did. Run again, it changes nothing.
func SetUpSearchAttributes(ctx context.Context, c client.Client, namespace string) ([]string, error) {
	namespace = cmp.Or(namespace, client.DefaultNamespace)
	missing, err := missingSearchAttributes(ctx, c, namespace)
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 {
		return []string{fmt.Sprintf("namespace %s has all %d search attributes (%s): nothing to do", namespace,
			len(search.Attributes), strings.Join(names(search.Attributes), ", "))}, nil
	}
	req := &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: map[string]enumspb.IndexedValueType{}}
	var done []string
	for _, k := range missing {
		req.SearchAttributes[k.GetName()] = k.GetValueType()
		done = append(done, fmt.Sprintf("added search attribute %s (%s) to namespace %s", k.GetName(), typeName(k.GetValueType()), namespace))
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, req); err != nil {
		return nil, fmt.Errorf("adding the search attributes %s to Temporal namespace %s: %w", strings.Join(names(missing), ", "), namespace, err)
	}
	return done, nil
}

// CheckSearchAttributes checks the stack's namespace (CheckSearchAttributes).
func (s *Stack) CheckSearchAttributes(ctx context.Context) error {
	return CheckSearchAttributes(ctx, s.Temporal, s.Config.TemporalNamespace)
}
