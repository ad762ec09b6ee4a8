#!/usr/bin/env node
// s3-server-consistent.mjs — oracle/s3-server.mjs (same arguments) with one s3rver 3.7.1 bug fixed: its filesystem
// store answers PutObject / CompleteMultipartUpload when the bytes have passed its MD5 transform, not when the file
// write has finished, so a HEAD or GET right after the PUT can see a partial object (seen here: a 5 MiB PUT, then
// HEAD -> Content-Length 0 or 4194304). Real S3 is read-after-write consistent. The patch below is s3rver's own
// putObject with the promise resolved on the write stream's 'close' instead; then the server script is loaded.
import { createRequire } from 'node:module';
import crypto from 'node:crypto';
import { Transform } from 'node:stream';

const require = createRequire(import.meta.url);
const FilesystemStore = require('s3rver/lib/stores/filesystem');
const fs = require('fs-extra');
const path = require('node:path');

FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await fs.mkdirp(path.dirname(objectPath));
  const [size, md5] = await new Promise((resolve, reject) => {
    const writeStream = fs.createWriteStream(objectPath);
    const md5Context = crypto.createHash('md5');
    let totalLength = 0;
    writeStream.on('error', reject).on('close', () => resolve([totalLength, md5Context.digest('hex')]));
    if (Buffer.isBuffer(object.content)) {
      totalLength = object.content.length;
      md5Context.update(object.content);
      writeStream.end(object.content);
      return;
    }
    object.content
      .pipe(new Transform({ transform(chunk, enc, cb) { md5Context.update(chunk, enc); totalLength += chunk.length; cb(null, chunk); } }))
      .on('error', reject)
      .pipe(writeStream);
  });
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size, md5 };
};

await import('./oracle/s3-server.mjs');
