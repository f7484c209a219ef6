// Command api is the partner API's Lambda function: the same
// internal/httpapi router as the local server, behind API Gateway (HTTP
// API, payload 2.0) through aws-lambda-go-api-proxy. It opens uploads for
// the start check, so it links MuPDF.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"blueprint/internal/awsapp"
	"blueprint/internal/cmalloc"
	"blueprint/internal/config"
	"blueprint/internal/docfiles"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
)

func main() {
	files := func(c config.Config) job.Files { return docfiles.ForConfig(c) }
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Files: files, Flow: true, Keys: true, GiveBack: cmalloc.Trim})
	if err != nil {
		slog.Error("api: init", "err", err)
		os.Exit(1)
	}
	h, err := app.Handler()
	if err != nil {
		slog.Error("api: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.API(h, app.Logs))
}
