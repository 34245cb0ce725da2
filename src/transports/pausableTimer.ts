// A deadline that stops while the user is being asked something (a host key, a passphrase): the SSH connect
// timeout covers TCP, key exchange and authentication, not the time a person takes to answer.
export class PausableTimer {
  readonly #onFire: () => void;
  #remaining: number;
  #startedAt = 0;
  #handle: ReturnType<typeof setTimeout> | undefined;
  #pauses = 0;
  #cleared = false;

  constructor(ms: number, onFire: () => void) {
    this.#onFire = onFire;
    this.#remaining = ms;
    if (ms > 0) this.#start();
    else this.#cleared = true;
  }

  #start(): void {
    this.#startedAt = Date.now();
    this.#handle = setTimeout(
      () => {
        this.#cleared = true;
        this.#onFire();
      },
      Math.max(0, this.#remaining),
    );
  }

  pause(): void {
    if (this.#cleared) return;
    if (this.#pauses++ === 0 && this.#handle !== undefined) {
      clearTimeout(this.#handle);
      this.#handle = undefined;
      this.#remaining -= Date.now() - this.#startedAt;
    }
  }

  resume(): void {
    if (this.#cleared || this.#pauses === 0) return;
    if (--this.#pauses === 0) this.#start();
  }

  clear(): void {
    this.#cleared = true;
    if (this.#handle !== undefined) clearTimeout(this.#handle);
    this.#handle = undefined;
  }
}
