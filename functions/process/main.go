// Command process is the processing Lambda function (a container image,
// functions/process/Dockerfile): the state machine's processing task,
// which renders every page with MuPDF, detects symbols and stores the
// results of one job. Started with the argument "serve" (as SageMaker
// starts it), the same image is the raster detector's real-time endpoint
// instead (internal/rasterserve); BLUEPRINT_RASTER_ENDPOINT makes the
// function send its pages' inference there (internal/sagemakerdetect).
// With the argument "ocr-check" it checks that it can read text on images
// (internal/ocrcheck) and exits.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-lambda-go/lambda"

	"blueprint/internal/awsapp"
	"blueprint/internal/catalog"
	"blueprint/internal/cmalloc"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
	"blueprint/internal/ocr"
	"blueprint/internal/ocrcheck"
	"blueprint/internal/raster"
	"blueprint/internal/rasterserve"
	"blueprint/internal/sagemakerdetect"
)

func main() {
	// SageMaker starts the image with "serve": the raster detector's
	// endpoint (template.yaml, RasterInference=sagemaker).
	if len(os.Args) > 1 && os.Args[1] == rasterserve.Arg {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		defer stop()
		if err := rasterserve.Run(ctx, os.Getenv, slog.New(slog.NewJSONHandler(os.Stderr, nil))); err != nil {
			slog.Error("process: serve", "err", err)
			os.Exit(1)
		}
		return
	}
	// `bootstrap ocr-check`: Tesseract found as below (BLUEPRINT_OCR, else
	// PATH) reads English and Finnish (make process-rootfs-check runs it in
	// the image's file system).
	if len(os.Args) > 1 && os.Args[1] == ocrcheck.Arg {
		read, err := ocrcheck.Run(context.Background(), os.Getenv)
		fmt.Print(read)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("ocr-check: ok")
		return
	}
	files := func(c config.Config) job.Files { return docfiles.ForConfig(c) }
	eng := func(c config.Config, cat *catalog.Catalog) (detect.Engine, error) {
		rc := raster.Config{Library: c.Raster.Library}
		// With BLUEPRINT_RASTER_ENDPOINT set, pages go to that endpoint.
		remote, err := sagemakerdetect.FromEnv(context.Background(), os.Getenv, rc, nil)
		if err != nil {
			return nil, err
		}
		opt := engine.Options{RasterOff: c.Raster.Off, RasterOnVector: c.Raster.OnVector, Raster: rc, TraceImages: c.Raster.ImageTrace}
		if opt.OCR, err = ocr.Open(context.Background(), c.Raster.ImageLegends, c.Raster.OCR); err != nil {
			return nil, fmt.Errorf("%s: %w", config.EnvOCR, err)
		}
		// Words drawn as outlines are read wherever tesseract is.
		if opt.Outlines, err = ocr.Open(context.Background(), true, c.Raster.OCR); err != nil {
			return nil, fmt.Errorf("%s: %w", config.EnvOCR, err)
		}
		if remote != nil {
			opt.RasterDetector = remote
		}
		return engine.New(cat, opt)
	}
	app, err := awsapp.New(context.Background(), os.Getenv, awsapp.Needs{Files: files, Engine: eng, GiveBack: cmalloc.Trim})
	if err != nil {
		slog.Error("process: init", "err", err)
		os.Exit(1)
	}
	lambda.Start(lambdafn.Process(app.Service, app.Logs))
}
