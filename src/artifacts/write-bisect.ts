import { join } from 'node:path'
import { renderBisectHtml } from './bisect-html.js'
import { renderBisectMarkdown } from './bisect-report.js'
import { type BisectFile, BisectFileSchema } from './bisect-schema.js'
import { writeJsonAtomic, writeTextAtomic } from './write.js'

/** bisect.json (validated), bisect.md and bisect.html in `outDir`, each replaced atomically. @throws FlakeproofError `E_WRITE` */
export function writeBisect(outDir: string, file: BisectFile): BisectFile {
  const written = writeJsonAtomic(join(outDir, 'bisect.json'), BisectFileSchema, file)
  writeTextAtomic(join(outDir, 'bisect.md'), renderBisectMarkdown(written))
  writeTextAtomic(join(outDir, 'bisect.html'), renderBisectHtml(written))
  return written
}
