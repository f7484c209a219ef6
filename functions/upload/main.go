// Command upload is the S3 upload-event Lambda function: for each object
// created at a job's upload key (an EventBridge "Object Created" event) it
// records the stored object's size and ETag on the job and, for a job
// initialized with start_on_upload, starts it with the start call's own
// check and hands it to the state machine. The check opens the upload, so
// it links MuPDF, as the api function does.
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
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Files: files, Flow: true, GiveBack: cmalloc.Trim})
	if err != nil {
		slog.Error("upload: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Upload(app.Service, app.Config.Bucket, app.Logs))
}
