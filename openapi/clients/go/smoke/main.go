// Command smoke exercises the Go client that oapi-codegen generates from openapi/openapi.json
// against a running Rehearsal API: health, list tests, create a test (and the 409 of creating
// it again), summary. It prints one line per step and exits 1 on the first failed expectation,
// 2 on bad usage.
//
//	go run ./smoke -base-url http://127.0.0.1:8080 -name smoke-go
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"rehearsal.dev/openapi/clients/go/rehearsalapi"
)

type options struct {
	baseURL   string
	name      string
	namespace string
	token     string
}

func main() {
	var opts options
	flag.StringVar(&opts.baseURL, "base-url", "", "API base URL, e.g. http://127.0.0.1:8080 (required)")
	flag.StringVar(&opts.name, "name", "", "name of the RestoreTest to create; must not exist yet (required)")
	flag.StringVar(&opts.namespace, "namespace", "", "namespace of the RestoreTest; default: the server's namespace")
	flag.StringVar(&opts.token, "token", os.Getenv("REHEARSAL_TOKEN"), "bearer token (REHEARSAL_AUTH_MODE=kubernetes)")
	flag.Parse()
	if opts.baseURL == "" || opts.name == "" {
		fmt.Fprintln(os.Stderr, "error: -base-url and -name are required")
		flag.Usage()
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := run(ctx, opts); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("go smoke: ok")
}

// integerFields are the fields the seed specification types int (decision 0011). The generated
// client must give them Go integer types, not float64.
var integerFields = []struct {
	model  any
	fields []string
}{
	{rehearsalapi.TestResponse{}, []string{"LastScore", "HistoryLimit"}},
	{rehearsalapi.Summary{}, []string{"AverageScore", "TotalTests", "TestsLastNight", "TotalFailures", "TotalPartial", "NamespacesCovered"}},
	{rehearsalapi.DailySummary{}, []string{"Score", "Tests", "Failures"}},
	{rehearsalapi.Alert{}, []string{"Score", "PrevScore"}},
	{rehearsalapi.ComplianceResponse{}, []string{"Period", "TotalTests", "AvgScore", "NamespacesCovered"}},
	{rehearsalapi.UpcomingTest{}, []string{"LastScore"}},
	{rehearsalapi.LicenseResponse{}, []string{"TrialDaysLeft"}},
	{rehearsalapi.CreateTestInput{}, []string{"HistoryLimit"}},
}

func checkIntegerFields() error {
	checked := 0
	for _, entry := range integerFields {
		typ := reflect.TypeOf(entry.model)
		for _, name := range entry.fields {
			field, ok := typ.FieldByName(name)
			if !ok {
				return fmt.Errorf("types: %s has no field %s", typ.Name(), name)
			}
			fieldType := field.Type
			if fieldType.Kind() == reflect.Pointer { // optional fields
				fieldType = fieldType.Elem()
			}
			switch fieldType.Kind() {
			case reflect.Int, reflect.Int32, reflect.Int64:
				checked++
			default:
				return fmt.Errorf("types: %s.%s is %s, want an integer type", typ.Name(), name, field.Type)
			}
		}
	}
	fmt.Printf("types: %d int fields of the seed are Go integers\n", checked)
	return nil
}

// checkOptionalFields: fields added after the seed are optional, so clients of older servers
// still decode their answers; the generated type is a pointer (nil when absent).
func checkOptionalFields() error {
	field, ok := reflect.TypeOf(rehearsalapi.UpcomingTest{}).FieldByName("Overdue")
	if !ok || field.Type.Kind() != reflect.Pointer || field.Type.Elem().Kind() != reflect.Bool {
		return fmt.Errorf("types: UpcomingTest.Overdue should be an optional bool (*bool)")
	}
	fmt.Println("types: UpcomingTest.Overdue is *bool")
	return nil
}

func run(ctx context.Context, opts options) error {
	if err := checkIntegerFields(); err != nil {
		return err
	}
	if err := checkOptionalFields(); err != nil {
		return err
	}
	clientOptions := []rehearsalapi.ClientOption{
		rehearsalapi.WithHTTPClient(&http.Client{Timeout: 10 * time.Second}),
	}
	if opts.token != "" {
		clientOptions = append(clientOptions, rehearsalapi.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+opts.token)
			return nil
		}))
	}
	api, err := rehearsalapi.NewClientWithResponses(opts.baseURL, clientOptions...)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}

	health, err := api.GetHealthWithResponse(ctx)
	if err != nil {
		return fmt.Errorf("getHealth: %w", err)
	}
	if err := expectStatus("getHealth", health.StatusCode(), http.StatusOK, health.Body); err != nil {
		return err
	}
	if health.JSON200 == nil || health.JSON200.Status != rehearsalapi.HealthResponseStatus("ok") {
		return fmt.Errorf("getHealth: want status ok, got %s", health.Body)
	}
	fmt.Printf("getHealth: 200 status=%s\n", health.JSON200.Status)

	before, err := api.ListTestsWithResponse(ctx, &rehearsalapi.ListTestsParams{})
	if err != nil {
		return fmt.Errorf("listTests: %w", err)
	}
	if err := expectStatus("listTests", before.StatusCode(), http.StatusOK, before.Body); err != nil {
		return err
	}
	if before.JSON200 == nil {
		return fmt.Errorf("listTests: body is not a TestResponse array: %s", before.Body)
	}
	for _, test := range *before.JSON200 {
		if test.Name == opts.name && (opts.namespace == "" || test.Namespace == opts.namespace) {
			return fmt.Errorf("listTests: %s exists already; pick a fresh -name", opts.name)
		}
	}
	fmt.Printf("listTests: 200 tests=%d\n", len(*before.JSON200))

	// cron is optional in the schema (a test may run on each new backup instead), so a pointer.
	cron := "0 3 * * *"
	input := rehearsalapi.CreateTestInput{
		Name:             opts.name,
		Provider:         "velero",
		SourceNamespaces: []string{"payments", "payments-db"},
		Cron:             &cron,
	}
	if opts.namespace != "" {
		input.Namespace = &opts.namespace
	}
	created, err := api.CreateTestWithResponse(ctx, &rehearsalapi.CreateTestParams{}, input)
	if err != nil {
		return fmt.Errorf("createTest: %w", err)
	}
	if err := expectStatus("createTest", created.StatusCode(), http.StatusCreated, created.Body); err != nil {
		return err
	}
	test := created.JSON201
	switch {
	case test == nil:
		return fmt.Errorf("createTest: body is not a TestResponse: %s", created.Body)
	case test.Name != opts.name:
		return fmt.Errorf("createTest: name %q, want %q", test.Name, opts.name)
	case test.Provider != "velero":
		return fmt.Errorf("createTest: provider %q, want velero", test.Provider)
	case test.Schedule != cron:
		return fmt.Errorf("createTest: schedule %q, want %q", test.Schedule, cron)
	case !slices.Equal(test.SourceNamespaces, input.SourceNamespaces):
		return fmt.Errorf("createTest: sourceNamespaces %v, want %v", test.SourceNamespaces, input.SourceNamespaces)
	case opts.namespace != "" && test.Namespace != opts.namespace:
		return fmt.Errorf("createTest: namespace %q, want %q", test.Namespace, opts.namespace)
	}
	if created.Headers201 == nil || !strings.HasPrefix(created.Headers201.Location, "/api/v1/tests/"+opts.name) {
		return fmt.Errorf("createTest: Location header %q does not name the new test", created.HTTPResponse.Header.Get("Location"))
	}
	fmt.Printf("createTest: 201 %s/%s location=%s\n", test.Namespace, test.Name, created.Headers201.Location)

	again, err := api.CreateTestWithResponse(ctx, &rehearsalapi.CreateTestParams{}, input)
	if err != nil {
		return fmt.Errorf("createTest (again): %w", err)
	}
	if err := expectStatus("createTest (again)", again.StatusCode(), http.StatusConflict, again.Body); err != nil {
		return err
	}
	if again.ApplicationproblemJSON409 == nil || again.ApplicationproblemJSON409.Status != http.StatusConflict {
		return fmt.Errorf("createTest (again): 409 without a problem+json body: %s", again.Body)
	}
	fmt.Printf("createTest (again): 409 type=%s\n", again.ApplicationproblemJSON409.Type)

	// The summary reads the informer cache, which sees the new test a moment after the write.
	want := int32(len(*before.JSON200) + 1)
	var summary *rehearsalapi.Summary
	deadline := time.Now().Add(15 * time.Second)
	for {
		response, err := api.GetSummaryWithResponse(ctx, &rehearsalapi.GetSummaryParams{})
		if err != nil {
			return fmt.Errorf("getSummary: %w", err)
		}
		if err := expectStatus("getSummary", response.StatusCode(), http.StatusOK, response.Body); err != nil {
			return err
		}
		if response.JSON200 == nil {
			return fmt.Errorf("getSummary: body is not a Summary: %s", response.Body)
		}
		summary = response.JSON200
		if summary.TotalTests >= want || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if summary.TotalTests < want {
		return fmt.Errorf("getSummary: totalTests %v, want at least %v", summary.TotalTests, want)
	}
	if summary.NamespacesCovered < 2 || summary.AverageScore < 0 || summary.AverageScore > 100 {
		return fmt.Errorf("getSummary: implausible summary %+v", *summary)
	}
	fmt.Printf("getSummary: 200 totalTests=%v namespacesCovered=%v averageScore=%v\n",
		summary.TotalTests, summary.NamespacesCovered, summary.AverageScore)
	return nil
}

func expectStatus(operation string, got, want int, body []byte) error {
	if got == want {
		return nil
	}
	return fmt.Errorf("%s: HTTP %d, want %d: %s", operation, got, want, strings.TrimSpace(string(body)))
}
