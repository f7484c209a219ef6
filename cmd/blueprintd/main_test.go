package main

import (
	"os"
	"testing"

	"blueprint/internal/raster"
)

// TestMain lets this test binary serve as the child that
// raster.CheckInChild starts when a test builds the service with its
// real engine.
func TestMain(m *testing.M) {
	raster.ServeChildCheck()
	os.Exit(m.Run())
}
