package document

import (
	"context"
	"errors"
	"fmt"
	"image"

	"blueprint/internal/imagefile"
)

// imageFormat is the image format of an upload's MIME type.
func imageFormat(mime string) (imagefile.Format, bool) {
	switch mime {
	case MimePNG:
		return imagefile.PNG, true
	case MimeJPEG:
		return imagefile.JPEG, true
	case MimeWebP:
		return imagefile.WebP, true
	}
	return 0, false
}

// readImageHeader reads an image upload's header (imagefile.ReadHeader)
// as the start check reports it: a header that cannot be read is a
// corrupt *InvalidError; damage found once the dimensions are known is
// left in Header.Damage, as a corrupt *InvalidError naming the damage, so
// that size limits are reported first.
func readImageHeader(data []byte, mime string) (imagefile.Header, error) {
	f, ok := imageFormat(mime)
	if !ok {
		return imagefile.Header{}, invalid(ReasonTypeMismatch, map[string]any{"declared": mime, "detected": mime},
			"%s is not a supported upload type", mime)
	}
	h, err := imagefile.ReadHeader(data, f)
	if err != nil {
		var te *imagefile.TruncatedError
		if errors.As(err, &te) {
			return h, damaged(DamageTruncated, "%s", te.Message)
		}
		return h, invalid(ReasonCorrupt, nil, "the image header cannot be read: the file is damaged (%v)", err)
	}
	if te, ok := h.Damage.(*imagefile.TruncatedError); ok {
		h.Damage = damaged(DamageTruncated, "%s", te.Message)
	}
	return h, nil
}

// decodeImage decodes an image upload into the 8-bit page the pipeline
// reads (imagefile.Decode), after checking its header against lim
// (page_too_large). Damage found while decoding is a corrupt
// *InvalidError.
func decodeImage(ctx context.Context, data []byte, mime string, lim Limits) (image.Image, error) {
	hd, err := readImageHeader(data, mime)
	if err != nil {
		return nil, err
	}
	if err := checkImageLimits(hd, lim); err != nil {
		return nil, err
	}
	if hd.Damage != nil {
		return nil, hd.Damage
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("decode image: %w", err)
	}
	f, _ := imageFormat(mime)
	img, err := imagefile.Decode(data, f)
	if err != nil {
		return nil, invalid(ReasonCorrupt, nil, "the image cannot be decoded: the file is damaged (%v)", err)
	}
	return img, nil
}

// checkImageLimits refuses an image over MaxPagePixels pixels, or whose
// decoding would hold more than MaxPagePixels × imagefile.PageBytesPerPixel
// bytes.
func checkImageLimits(hd imagefile.Header, lim Limits) error {
	px := int64(hd.Width) * int64(hd.Height)
	maxBytes := lim.MaxPagePixels * imagefile.PageBytesPerPixel
	if px > lim.MaxPagePixels || hd.DecodeBytes > maxBytes {
		e := pageTooLarge(0, hd.Width, hd.Height, lim)
		e.Details["decode_bytes"] = hd.DecodeBytes
		e.Details["max_decode_bytes"] = maxBytes
		if px <= lim.MaxPagePixels {
			e.Message = fmt.Sprintf("the image is %d × %d pixels, but decoding it takes %d bytes (its depth, channels or encoding need more than %d bytes a pixel); at most %d bytes (%d pixels of 8-bit RGBA) are accepted; save it as an 8-bit PNG or a baseline JPEG",
				hd.Width, hd.Height, hd.DecodeBytes, imagefile.PageBytesPerPixel, maxBytes, lim.MaxPagePixels)
		}
		return e
	}
	return nil
}
