// Command process is the processing Lambda function (a container image,
// functions/process/Dockerfile): the state machine's processing task,
// which renders every page with MuPDF, detects symbols and stores the
// results of one job.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"blueprint/internal/awsapp"
	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
	"blueprint/internal/raster"
)

func main() {
	files := func(c config.Config) job.Files { return docfiles.ForConfig(c) }
	eng := func(c config.Config, cat *catalog.Catalog) (detect.Engine, error) {
		return engine.New(cat, engine.Options{RasterOff: c.Raster.Off, RasterOnVector: c.Raster.OnVector, Raster: raster.Config{Library: c.Raster.Library}})
	}
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Files: files, Engine: eng})
	if err != nil {
		slog.Error("process: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Process(app.Service, app.Logs))
}
