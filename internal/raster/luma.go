package raster

import "image"

// Gray returns img as the detector reads it: 8-bit BT.601 luma composited
// on white (the Y plane of a JPEG as it is), with img's bounds. Detect and
// Verify find exactly the same on the returned image as on img, so a page
// may be sent to a detector elsewhere as its Gray (an 8-bit gray PNG, a
// third of an RGB one's bytes or less) without changing what is found.
func Gray(img image.Image) *image.Gray {
	g := lumaPixels(img)
	return &image.Gray{Pix: g.pix, Stride: g.w, Rect: img.Bounds()}
}
