package io.flashstock.config;

import java.time.Duration;

import io.smallrye.config.WithDefault;

/** {@code flashstock.tokens.*}: a group of {@link FlashstockConfig} ({@link FlashstockConfig#tokens()}). */
public interface TokensConfig {
    /**
     * Most verified tokens a pod remembers, so that a client sending the same token again (a shop's backend, a
     * buyer refreshing) is not verified again: an RS256 signature check and the claims' parsing cost more CPU
     * than a whole sold-out answer. Only tokens that passed verification are remembered, each until its
     * {@code exp} or {@code cache-ttl}, whichever comes first. Each costs a few KB of heap (the token and its
     * parsed claims). When full, Caffeine's W-TinyLFU decides what stays: a newcomer displaces an entry only if it
     * has been seen more often, so a storm of one-off tokens does not evict the tokens in steady use. 0 verifies
     * every request.
     */
    @WithDefault("2000")
    int cacheSize();

    /**
     * Longest a verified token is remembered. Bounds how long a pod keeps accepting tokens signed with a key
     * that has just been taken out of {@code mp.jwt.verify.publickey.location} (the file is re-read only by a
     * restart in any case).
     */
    @WithDefault("60s")
    Duration cacheTtl();

    /**
     * Longest lifetime a bearer token may have: a token whose {@code exp} lies more than this after its {@code iat}
     * is refused (401), as is one without {@code iat} or {@code exp}, or one issued more than the clock skew
     * ({@code mp.jwt.verify.clock.skew}) in the future. Bounds how long a leaked token stays useful, whatever
     * lifetime its issuer gave it.
     */
    @WithDefault("24h")
    Duration maxAge();
}
