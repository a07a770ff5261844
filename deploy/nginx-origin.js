// For deploy/nginx.conf (njs, Debian's libnginx-mod-http-js): the request's
// Origin where it sent exactly one, else "". nginx 1.22's $http_origin is
// the first of several Origin lines, so its own answers named the first
// origin of a request with two, where the service (http/src/cors.rs) names
// none; this makes nginx's answers match the service's.
function single(r) {
    var found = [];
    var headers = r.rawHeadersIn;
    for (var i = 0; i < headers.length; i++) {
        if (headers[i][0].toLowerCase() === 'origin') {
            found.push(headers[i][1]);
        }
    }
    return found.length === 1 ? found[0] : '';
}

export default { single };
