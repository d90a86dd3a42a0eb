/**
 * A cache for an access token that is good for a few uses. When the current token is used up, it
 * starts fetching a new one in the background.
 *
 * The bug: `TokenCache` drops the old token as soon as the refresh starts, assuming nobody will ask
 * again before the new one arrives. A caller that comes back quickly (a retry loop, a busy server,
 * a test) finds no token at all. `FixedTokenCache` keeps serving the old token until the new one is
 * in place (stale-while-revalidate).
 */
export type FetchToken = () => Promise<string>

export class TokenCache {
  protected token: string | undefined
  protected uses = 0

  constructor(
    protected readonly fetchToken: FetchToken,
    protected readonly usesPerToken = 5,
  ) {}

  /** The current token, or undefined while a refresh is under way. */
  get(): string | undefined {
    this.uses++
    const current = this.token
    if (this.uses % this.usesPerToken === this.usesPerToken - 1) this.refresh()
    return current
  }

  protected refresh(): void {
    this.token = undefined
    void this.fetchToken().then((token) => {
      this.token = token
    })
  }

  async warmUp(): Promise<void> {
    this.token = await this.fetchToken()
  }
}

export class FixedTokenCache extends TokenCache {
  protected override refresh(): void {
    void this.fetchToken().then((token) => {
      this.token = token
    })
  }
}
