// Hand-made PNGs for tests of the image checks and of OCR failures: correct framing (signature, chunk
// lengths and CRC-32s) around whatever a test needs inside. Rendered text images are text-image.ts's job.
import { randomBytes } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Length, type, data and the CRC-32 of type + data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function ihdr(width: number, height: number, colourType: "grey" | "rgb"): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data.set([8, colourType === "grey" ? 0 : 2, 0, 0, 0], 8); // bit depth, colour type, compression, filter, interlace
  return pngChunk("IHDR", data);
}

/** A PNG signature and IHDR chunk claiming width × height (33 bytes): no pixel data behind it. */
export function pngHeaderClaiming(width: number, height: number): Buffer {
  return Buffer.concat([signature, ihdr(width, height, "grey")]);
}

/** 64×32 RGB that passes every check at submission but cannot be decoded: its IDAT stream is cut off halfway. */
export function pngWithCorruptImageData(): Buffer {
  const width = 64;
  const height = 32;
  const compressed = deflateSync(Buffer.alloc((width * 3 + 1) * height, 0x7f));
  const broken = Buffer.concat([
    compressed.subarray(0, Math.floor(compressed.length / 2)),
    Buffer.from([0xde, 0xad, 0xbe, 0xef]),
  ]);
  return Buffer.concat([
    signature,
    ihdr(width, height, "rgb"),
    pngChunk("IDAT", broken),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** The PNG with a private ancillary chunk of `extra` random bytes before IEND: bigger, and still the same picture. */
export function paddedPng(png: Buffer, extra: number): Buffer {
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), pngChunk("paDd", randomBytes(extra)), png.subarray(iend)]);
}
