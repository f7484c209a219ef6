// Command sweep is the scheduled Lambda function: expiry and purge of old
// jobs, and recovery of work the state machine dropped (jobs left queued,
// stalled jobs, overdue webhooks). It builds without MuPDF
// (CGO_ENABLED=0).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"blueprint/internal/awsapp"
	"blueprint/internal/lambdafn"
)

func main() {
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Flow: true, Keys: true})
	if err != nil {
		slog.Error("sweep: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Sweep(app.Service, app.Logs))
}
