// Package vector finds symbol templates in the drawing of vector PDF pages
// (a drawing.Page: segments, arcs and text in raster pixels) at any
// rotation, mirror and uniform scale.
package vector
