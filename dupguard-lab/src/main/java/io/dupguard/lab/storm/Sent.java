package io.dupguard.lab.storm;

/**
 * What the client side knows about one logical request after the run, handed to the checker.
 *
 * @param request the request
 * @param acknowledged whether any attempt answered with success
 * @param response the first successful answer (null if none)
 */
public record Sent(Request request, boolean acknowledged, Object response) {}
