package automation

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	payload, err := decodeAny([]byte(`{"customer":{"name":"Ada","phone":"+15550100002","vip":true,"tags":["a","b"]},
		"items":[{"sku":"X1","qty":2}],"total":12.50,"big":12345678901234567890,"none":null}`))
	if err != nil {
		t.Fatal(err)
	}
	sc := scope{payload: payload, endpoint: map[string]string{"endpoint.id": "pub_1", "endpoint.name": "Orders"}}
	for tpl, want := range map[string]string{
		"Hi {{payload.customer.name}}!":                      "Hi Ada!",
		"{{ payload.items.0.sku }} x{{payload.items.0.qty}}": "X1 x2",
		"{{payload.total}} / {{payload.big}}":                "12.50 / 12345678901234567890", // numbers as sent
		"{{payload.customer.vip}}":                           "true",
		"{{payload.customer.tags}}":                          `["a","b"]`,
		"from {{endpoint.name}} ({{endpoint.id}})":           "from Orders (pub_1)",
		"no holes": "no holes",
	} {
		got, err := render(tpl, sc)
		if err != nil || got != want {
			t.Errorf("render(%q) = %q, %v; want %q", tpl, got, err, want)
		}
	}
	for tpl, wantErr := range map[string]string{
		"{{payload.customer.email}}": "payload.customer.email",
		"{{payload.items.3.sku}}":    "payload.items.3",
		"{{payload.total.cents}}":    "not an object",
		"{{payload.none}}":           "null",
		"{{env.HOME}}":               "templates read",
		"{{payload.customer.name":    "unclosed",
	} {
		if _, err := render(tpl, sc); err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("render(%q): %v, want an error about %q", tpl, err, wantErr)
		}
	}
	for _, bad := range []string{"{{secrets.x}}", "{{payload.a", "{{endpoint.token}}", strings.Repeat("x", maxTemplate+1)} {
		if checkTemplate(bad) == nil {
			t.Errorf("checkTemplate(%q) accepted", bad)
		}
	}
	if err := checkTemplate("Hi {{payload.name}} from {{endpoint.name}}"); err != nil {
		t.Error(err)
	}
}
