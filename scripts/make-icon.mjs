// Draws media/icon.png (128×128): a GPU die over a memory gauge whose last segment is "unaccounted".
// Kept as a script so the icon can be regenerated without image tools.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const size = 128;
const pixels = Buffer.alloc(size * size * 4);
const set = (x, y, [r, g, b, a = 255]) => {
  if (x < 0 || y < 0 || x >= size || y >= size) return;
  const i = (y * size + x) * 4;
  pixels[i] = r;
  pixels[i + 1] = g;
  pixels[i + 2] = b;
  pixels[i + 3] = a;
};
const rect = (x0, y0, w, h, color, radius = 0) => {
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const dx = Math.max(x0 + radius - x, 0, x - (x0 + w - 1 - radius));
      const dy = Math.max(y0 + radius - y, 0, y - (y0 + h - 1 - radius));
      if (dx * dx + dy * dy <= radius * radius) set(x, y, color);
    }
};
rect(0, 0, 128, 128, [24, 32, 48], 22); // background
for (let i = 0; i < 5; i++) {
  // pins
  rect(36 + i * 12, 14, 5, 10, [150, 160, 175]);
  rect(36 + i * 12, 74, 5, 10, [150, 160, 175]);
}
rect(28, 22, 72, 54, [118, 185, 0], 6); // die
rect(40, 34, 48, 30, [30, 60, 20], 3); // core
rect(16, 94, 96, 20, [60, 70, 90], 5); // gauge frame
rect(20, 98, 56, 12, [90, 170, 255], 2); // accounted by the cgroup
rect(78, 98, 30, 12, [255, 120, 60], 2); // unaccounted GTT

const raw = Buffer.alloc((size * 4 + 1) * size);
for (let y = 0; y < size; y++) pixels.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type), data]);
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(crc(body));
  return Buffer.concat([len, body, sum]);
};
const header = Buffer.alloc(13);
header.writeUInt32BE(size, 0);
header.writeUInt32BE(size, 4);
header[8] = 8;
header[9] = 6;
header[10] = 0;
header[11] = 0;
header[12] = 0;
writeFileSync(
  new URL('../media/icon.png', import.meta.url),
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]),
);
