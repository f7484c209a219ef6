// Command webhook is the state machine's webhook task: one due delivery
// attempt of a job's signed webhook (or marking a job failed when the
// processing task failed), returning the backoff to wait. It never opens
// an upload and builds without MuPDF (CGO_ENABLED=0).
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
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Keys: true})
	if err != nil {
		slog.Error("webhook: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Step(app.Service, app.Logs))
}
