// Types for the vendored QR code generator (qrcode.mjs, Kazuhiko Arase, MIT), as the page uses
// it: tsc reads these instead of checking the third-party file. Not served: the browser loads
// qrcode.mjs itself.

/** A QR code being built: add the data, make it, then read its modules. */
export interface QrCode {
  addData(data: string, mode?: string): void;
  make(): void;
  getModuleCount(): number;
  isDark(row: number, col: number): boolean;
}

/** A QR code of `typeNumber` (0: the smallest that fits) and error correction 'L', 'M', 'Q' or 'H'. */
export declare function qrcode(typeNumber: number, errorCorrectionLevel: 'L' | 'M' | 'Q' | 'H'): QrCode;
export default qrcode;
