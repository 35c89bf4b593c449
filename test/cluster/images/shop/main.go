// The shop's web server, as a container: the real HTTP endpoint behind the `web` Service of the
// sample application (test/helpers/sample-app.ts), answering what the shop's health checks ask.
//
//	GET /healthz  200 "ok"
//	GET /broken   500 "internal error"
//	GET /         200 "shop"
//	anything else 404
//
// Every request is logged to stdout (so `kubectl logs` has something real to show). Environment:
// PORT (default 8080); SHOP_CRASH=<message> makes it print the message to stderr and exit 1 at
// start, a container that crash-loops with a known log line. SIGTERM shuts it down at once.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	log.SetFlags(log.LstdFlags | log.LUTC)
	log.SetOutput(os.Stdout)
	if msg := os.Getenv("SHOP_CRASH"); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { text(w, 200, "ok") })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { text(w, 500, "internal error") })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			text(w, 404, "not found")
			return
		}
		text(w, 200, "shop")
	})
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Printf("%s %s %s", r.RemoteAddr, r.Method, r.URL.Path)
		mux.ServeHTTP(w, r)
	})
	server := &http.Server{Addr: ":" + port, Handler: logged, ReadHeaderTimeout: 10 * time.Second}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = server.Shutdown(ctx)
	}()
	log.Printf("shop listening on :%s", port)
	if err := server.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}

func text(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}
