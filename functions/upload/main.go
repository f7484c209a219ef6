// Command upload is the S3 upload-event Lambda function: for each object
// created at a job's upload key (an EventBridge "Object Created" event) it
// records the stored object's size and ETag on the job. It builds without
// MuPDF (CGO_ENABLED=0).
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
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{})
	if err != nil {
		slog.Error("upload: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Upload(app.Service, app.Config.Bucket, app.Logs))
}
