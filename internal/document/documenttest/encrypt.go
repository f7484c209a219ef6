package documenttest

import (
	"bytes"
	"compress/zlib"
	"crypto/aes"
	"crypto/cipher"
	"crypto/md5"
	"crypto/rc4"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
)

// Encryption is a PDF standard security handler EncryptedPDF writes.
type Encryption int

const (
	// RC4 is revision 3: 128-bit RC4 (PDF 1.4).
	RC4 Encryption = iota
	// AES256 is revision 6: 256-bit AES (PDF 2.0).
	AES256
)

// pdfPad is the password padding of the standard security handler.
var pdfPad = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

// EncryptedPDF writes a one-page 300 × 200 pt PDF that strokes a line and
// fills a square from a FlateDecode content stream, encrypted with the
// standard security handler: with an empty user password it opens without
// one (only its owner password guards its permissions), as PDF writers
// "protect" drawings against editing. Everything in it is fixed, so the
// same arguments give the same bytes.
func EncryptedPDF(enc Encryption, user, owner string) []byte {
	return EncryptedContentPDF(enc, user, owner, []byte("0 0 0 rg 10 10 50 50 re f 1 w 0 0 m 300 200 l S"))
}

// EncryptedContentPDF is EncryptedPDF with content as the page's content
// stream.
func EncryptedContentPDF(enc Encryption, user, owner string, content []byte) []byte {
	id := bytes.Repeat([]byte{0x5a, 0x17}, 8)
	const perms = int32(-3904) // printing allowed, editing not
	var b Builder
	catalog, pages, page := b.Reserve(), b.Reserve(), b.Reserve()
	contentObj := b.Reserve()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(content)
	zw.Close()
	var dict string
	var data []byte
	switch enc {
	case RC4:
		o := rc4Owner(owner, user)
		key := rc4FileKey(user, o, perms, id)
		u := rc4User(key, id)
		dict = fmt.Sprintf("<< /Filter /Standard /V 2 /R 3 /Length 128 /O <%x> /U <%x> /P %d >>", o, u, perms)
		data = rc4Crypt(rc4ObjectKey(key, contentObj, 0), buf.Bytes())
	case AES256:
		fileKey := bytes.Repeat([]byte{0xa5, 0x3c, 0x71, 0x0e}, 8)
		uvs, uks := []byte("uvsalt01"), []byte("ukssalt1")
		ovs, oks := []byte("ovsalt01"), []byte("okssalt1")
		u := append(append(hashR6([]byte(user), uvs, nil), uvs...), uks...)
		ue := aesNoIV(hashR6([]byte(user), uks, nil), fileKey)
		o := append(append(hashR6([]byte(owner), ovs, u), ovs...), oks...)
		oe := aesNoIV(hashR6([]byte(owner), oks, u), fileKey)
		p := make([]byte, 16)
		binary.LittleEndian.PutUint32(p, uint32(int64(perms)&0xffffffff))
		copy(p[4:], "\xff\xff\xff\xffTadb0000")
		block, _ := aes.NewCipher(fileKey)
		block.Encrypt(p, p)
		dict = fmt.Sprintf("<< /Filter /Standard /V 5 /R 6 /Length 256 /CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> /StmF /StdCF /StrF /StdCF /O <%x> /U <%x> /OE <%x> /UE <%x> /Perms <%x> /P %d >>",
			o, u, oe, ue, p, perms)
		data = aesCBC(fileKey, buf.Bytes())
	}
	b.Set(contentObj, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(data), data))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pages))
	b.Set(pages, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Set(page, fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] /Contents %d 0 R >>", pages, contentObj))
	encObj := b.Add(dict)
	hexID := hex.EncodeToString(id)
	return b.Bytes(catalog, fmt.Sprintf("/Encrypt %d 0 R /ID [<%s> <%s>]", encObj, hexID, hexID))
}

func padPassword(pw string) []byte {
	return append([]byte(pw), pdfPad...)[:32]
}

func rc4Crypt(key, data []byte) []byte {
	c, _ := rc4.NewCipher(key)
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

// rc4Owner is /O of revision 3 (algorithm 3).
func rc4Owner(owner, user string) []byte {
	if owner == "" {
		owner = user
	}
	h := md5.Sum(padPassword(owner))
	for range 50 {
		h = md5.Sum(h[:])
	}
	out := padPassword(user)
	for i := range 20 {
		k := make([]byte, 16)
		for j := range k {
			k[j] = h[j] ^ byte(i)
		}
		out = rc4Crypt(k, out)
	}
	return out
}

// rc4FileKey is the file key of revision 3 (algorithm 2).
func rc4FileKey(user string, o []byte, perms int32, id []byte) []byte {
	m := md5.New()
	m.Write(padPassword(user))
	m.Write(o)
	binary.Write(m, binary.LittleEndian, perms)
	m.Write(id)
	h := m.Sum(nil)
	for range 50 {
		s := md5.Sum(h[:16])
		h = s[:]
	}
	return h[:16]
}

// rc4User is /U of revision 3 (algorithm 5).
func rc4User(key, id []byte) []byte {
	m := md5.New()
	m.Write(pdfPad)
	m.Write(id)
	out := m.Sum(nil)
	for i := range 20 {
		k := make([]byte, len(key))
		for j := range k {
			k[j] = key[j] ^ byte(i)
		}
		out = rc4Crypt(k, out)
	}
	return append(out, make([]byte, 16)...)
}

// rc4ObjectKey is the key of object num, gen (algorithm 1).
func rc4ObjectKey(key []byte, num, gen int) []byte {
	h := md5.Sum(append(append([]byte(nil), key...), byte(num), byte(num>>8), byte(num>>16), byte(gen), byte(gen>>8)))
	return h[:min(len(key)+5, 16)]
}

// hashR6 is the password hash of revision 6 (algorithm 2.B).
func hashR6(pw, salt, udata []byte) []byte {
	s := sha256.Sum256(append(append(append([]byte(nil), pw...), salt...), udata...))
	k := s[:]
	for i := 0; ; i++ {
		var k1 []byte
		for range 64 {
			k1 = append(append(append(k1, pw...), k...), udata...)
		}
		block, _ := aes.NewCipher(k[:16])
		e := make([]byte, len(k1))
		cipher.NewCBCEncrypter(block, k[16:32]).CryptBlocks(e, k1)
		sum := 0
		for _, c := range e[:16] {
			sum += int(c)
		}
		var h hash.Hash
		switch sum % 3 {
		case 0:
			h = sha256.New()
		case 1:
			h = sha512.New384()
		default:
			h = sha512.New()
		}
		h.Write(e)
		k = h.Sum(nil)
		if i >= 63 && int(e[len(e)-1]) <= i-32 {
			break
		}
	}
	return k[:32]
}

// aesNoIV encrypts 32 bytes with AES-256 in CBC mode from a zero IV,
// without padding (/UE, /OE).
func aesNoIV(key, data []byte) []byte {
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(data))
	cipher.NewCBCEncrypter(block, make([]byte, 16)).CryptBlocks(out, data)
	return out
}

// aesCBC encrypts a stream: a fixed IV first, then AES-256-CBC of the
// data padded as PKCS#7.
func aesCBC(key, data []byte) []byte {
	n := 16 - len(data)%16
	data = append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(n)}, n)...)
	iv := bytes.Repeat([]byte{0x42}, 16)
	block, _ := aes.NewCipher(key)
	out := make([]byte, len(data))
	cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, data)
	return append(iv, out...)
}
