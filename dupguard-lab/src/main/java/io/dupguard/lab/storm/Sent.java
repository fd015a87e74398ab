package io.dupguard.lab.storm;

/**
 * What the client side knows about one logical request after the run, handed to the checker.
 *
 * @param request the request
 * @param acknowledged whether any attempt answered with success
 * @param response the first successful answer (null if none)
 * @param refusals attempts of this request that were refused (not counting a tampered duplicate)
 */
public record Sent(Request request, boolean acknowledged, Object response, int refusals) {

    /** A request none of whose attempts was refused. */
    public Sent(Request request, boolean acknowledged, Object response) {
        this(request, acknowledged, response, 0);
    }
}
