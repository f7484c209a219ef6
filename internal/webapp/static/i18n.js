// Texts of the page in English and Finnish. The language follows the
// browser's preference order as the API follows Accept-Language: Finnish
// when a Finnish language comes before any English one.

const texts = {
  en: {
    title: 'Blueprint review', apiKey: 'API key', useKey: 'Use key', forgetKey: 'Forget',
    upload: 'Upload a drawing', uploadStart: 'Upload and process',
    countWith: 'Count with the legend of', ownLegendOnly: 'its own legend only', fromJob: 'From {j}', jobs: 'Recent jobs', jobId: 'Job id',
    open: 'Open', more: 'More', confidence: 'Confidence', perClass: 'Per-class defaults',
    detections: 'detections', onPage: 'on this page', downloadCSV: 'Download CSV', downloadXLSX: 'Download XLSX',
    bySymbol: 'By symbol', byCategory: 'By category', showAll: 'Show all', symbol: 'Symbol', category: 'Category',
    count: 'Count', legend: 'Legend on the drawing', legendRow: 'Legend row', printed: 'Printed', found: 'Found',
    legendHere: 'The rows drawn on this page, with its counts.', pagesTitle: 'Pages',
    warnings: 'Check before relying on the counts',
    legendAll: 'This page draws no legend: each row of the document\'s once, with the pages it is drawn on, counts summed over them.',
    fit: 'Fit', empty: 'Paste an API key, or open a review link, then upload a drawing or open a job.',
    noKey: 'Enter an API key first.', keySaved: 'Key kept for this browser tab.', keyForgotten: 'Key forgotten.',
    noJobs: 'No jobs yet.', page: 'Page', pages: 'pages', onePage: 'page', status: {
      awaiting_upload: 'awaiting upload', queued: 'queued', processing: 'processing', done: 'done',
      failed: 'failed', expired: 'expired',
    },
    creating: 'Creating the job…', uploading: 'Uploading… {p} %', starting: 'Starting…',
    queued: 'Queued…', processing: 'Processing… page {d} of {t}', processingStart: 'Processing…',
    done: 'Done.', failed: 'Processing failed: {m}', expired: 'The job has expired ({m}).',
    chooseFile: 'Choose a drawing first.', loading: 'Loading…', notDone: 'This job is {s}.',
    confidenceDefault: 'per class', mismatch: 'differs from the legend', noClass: 'not mapped to a symbol',
    className: 'Class', conf: 'Confidence', source: 'Source', vector: 'vector matching', detector: 'detector',
    box: 'Box (px)', downloaded: 'Downloaded {f}.', noDetections: 'No detections under this filter.',
    keyInLink: 'This link carried an API key, which the page never uses from a link. Paste your key into the API key field instead.',
    keyChangeAsk: 'This review link is for a job the key in use cannot open. Switch to the link\'s job (this job only)?',
    keyKeep: 'Keep my key', keySwitch: 'Use the link', reviewAccess: 'Reviewing one job through a review link, until {t}. Paste your API key to see all jobs.',
    handoff: {
      taken: 'Opened by the review link: this job only, until {t} (kept for this browser tab).',
      covered: 'Opened the review link\'s job with the key in use.',
      kept: 'Kept the key in use; the review link was not followed.',
      used: 'This review link has already been used. Ask for a new link, or paste your API key.',
      expired: 'This review link has expired. Ask for a new link, or paste your API key.',
      unknown: 'This review link is not valid. Ask for a new link, or paste your API key.',
    },
    accept: 'Accept', reject: 'Reject', changeClass: 'Change class', undo: 'Undo',
    decision: { accepted: 'accepted', rejected: 'rejected', added: 'added', none: 'not reviewed' },
    withheldState: 'Withheld',
    withheld: {
      flood: 'not counted: its legend row matched far more places than the sheet can hold; accept to count it',
      catalog_only: 'not counted: no legend row names this class, and its confidence is below what such guesses reach on real drawings; accept to count it',
      off_scale: 'not counted: far smaller or larger than the other matches of its legend row (a look-alike in a logo, a hatch or a larger symbol); accept to count it',
    },
    reviewState: 'Review', reviewCounts: 'Reviewed: {a} accepted · {r} rejected · {n} added',
    keys: 'Keys: a accept · x reject · c change class · n / p next / previous · u next unreviewed · d draw a box (or shift-drag) · f find more like it · Esc cancel',
    prevTitle: 'Previous detection (p)', nextTitle: 'Next detection (n)', unreviewed: 'Unreviewed',
    unreviewedTitle: 'Next unreviewed detection (u)', drawBox: 'Draw box', drawTitle: 'Draw a box (d, or shift-drag)',
    addAsMenu: 'Add as …', findMore: 'Find more like this', cancel: 'Cancel', close: 'Close',
    pickClass: 'Choose a symbol', searchSymbols: 'Search symbols', noSymbols: 'No symbol matches.',
    matchesTitle: 'More like this', addAs: 'Add as', addAllNew: 'Add all new', addPicked: 'Add picked',
    chooseClass: 'choose…', searching: 'Searching…', searchingMore: 'Searching… {n} pages to go',
    searchStopped: 'The search stopped with {n} pages not searched.',
    matchesSummary: '{t} found: {n} new, {e} already detected.', matchExisting: 'already detected',
    notLikeThis: 'Not like this', nearMissesTitle: 'Near misses', acceptNear: 'Add',
    anyColour: 'Find them in any colour',
    tooManyExcluded: 'At most {n} look-alikes can be left out.',
    reasons: { missing_stroke: 'a stroke missing', extra_stroke: 'an extra stroke', part_of_larger_symbol: 'part of a larger symbol',
      another_colour: 'another colour', another_size: 'another size', another_tag: 'another code beside it' },
    matchNew: 'new', score: 'score {s}', added: 'Added {n}.', noneNew: 'Nothing new to add.',
    noneVisible: 'No detections to go to.', allReviewed: 'Every detection shown has been reviewed.',
    reviewed: '{d}: {c}.', classChanged: 'Class changed to {c}.', selectFirst: 'Click a box first.',
    drawFirst: 'Draw a box first (d, or shift-drag).', processingPages: '{d} of {t} pages done',
    processingTitle: 'Processing {f}', queuedTitle: 'Queued: {f}', legendGlyph: 'Glyph on the drawing',
    tag: 'tag', partNumber: 'part', code: 'code', tagged: 'tagged', agreement: 'agree',
    agree_all: 'all', agree_detected_printed: 'found and printed', agree_tagged_printed: 'tags and printed',
    agree_detected_tagged: 'found and tags', agree_none: 'none', agree_unchecked: 'nothing to check',
  },
  fi: {
    title: 'Piirustusten tarkastus', apiKey: 'API-avain', useKey: 'Käytä avainta', forgetKey: 'Unohda',
    upload: 'Lähetä piirustus', uploadStart: 'Lähetä ja käsittele',
    countWith: 'Laske selitteellä työstä', ownLegendOnly: 'vain oma selite', fromJob: 'Työstä {j}', jobs: 'Viimeisimmät työt', jobId: 'Työn tunnus',
    open: 'Avaa', more: 'Lisää', confidence: 'Luottamus', perClass: 'Luokkakohtaiset oletukset',
    detections: 'tunnistusta', onPage: 'tällä sivulla', downloadCSV: 'Lataa CSV', downloadXLSX: 'Lataa XLSX',
    bySymbol: 'Symboleittain', byCategory: 'Ryhmittäin', showAll: 'Näytä kaikki', symbol: 'Symboli', category: 'Ryhmä',
    count: 'Määrä', legend: 'Piirustuksen selite', legendRow: 'Selitteen rivi', printed: 'Selitteessä', found: 'Löydetty',
    legendHere: 'Tälle sivulle piirretyt rivit ja sivun määrät.', pagesTitle: 'Sivut',
    warnings: 'Tarkista ennen kuin luotat määriin',
    legendAll: 'Tällä sivulla ei ole selitettä: asiakirjan jokainen rivi kerran, sivut joille se on piirretty ja niiden määrät yhteensä.',
    fit: 'Sovita', empty: 'Liitä API-avain tai avaa tarkastuslinkki, ja lähetä piirustus tai avaa työ.',
    noKey: 'Anna ensin API-avain.', keySaved: 'Avain säilyy tässä välilehdessä.', keyForgotten: 'Avain unohdettu.',
    noJobs: 'Ei vielä töitä.', page: 'Sivu', pages: 'sivua', onePage: 'sivu', status: {
      awaiting_upload: 'odottaa tiedostoa', queued: 'jonossa', processing: 'käsittelyssä', done: 'valmis',
      failed: 'epäonnistui', expired: 'vanhentunut',
    },
    creating: 'Luodaan työtä…', uploading: 'Lähetetään… {p} %', starting: 'Käynnistetään…',
    queued: 'Jonossa…', processing: 'Käsitellään… sivu {d}/{t}', processingStart: 'Käsitellään…',
    done: 'Valmis.', failed: 'Käsittely epäonnistui: {m}', expired: 'Työ on vanhentunut ({m}).',
    chooseFile: 'Valitse ensin piirustus.', loading: 'Ladataan…', notDone: 'Työn tila: {s}.',
    confidenceDefault: 'luokittain', mismatch: 'eroaa selitteestä', noClass: 'ei vastaa symbolia',
    className: 'Luokka', conf: 'Luottamus', source: 'Lähde', vector: 'vektorivertailu', detector: 'tunnistin',
    box: 'Laatikko (px)', downloaded: 'Ladattu {f}.', noDetections: 'Ei tunnistuksia tällä suodattimella.',
    keyInLink: 'Linkissä oli API-avain, jota sivu ei koskaan käytä linkistä. Liitä avaimesi API-avain-kenttään.',
    keyChangeAsk: 'Tämä tarkastuslinkki on työhön, jota käytössä oleva avain ei avaa. Vaihdetaanko linkin työhön (vain tähän työhön)?',
    keyKeep: 'Pidä oma avain', keySwitch: 'Käytä linkkiä', reviewAccess: 'Tarkastat yhtä työtä tarkastuslinkin kautta {t} asti. Liitä API-avaimesi nähdäksesi kaikki työt.',
    handoff: {
      taken: 'Avattu tarkastuslinkillä: vain tämä työ, {t} asti (säilyy tässä välilehdessä).',
      covered: 'Tarkastuslinkin työ avattiin käytössä olevalla avaimella.',
      kept: 'Käytössä oleva avain pidettiin; linkkiä ei avattu.',
      used: 'Tämä tarkastuslinkki on jo käytetty. Pyydä uusi linkki tai liitä API-avaimesi.',
      expired: 'Tämä tarkastuslinkki on vanhentunut. Pyydä uusi linkki tai liitä API-avaimesi.',
      unknown: 'Tämä tarkastuslinkki ei kelpaa. Pyydä uusi linkki tai liitä API-avaimesi.',
    },
    accept: 'Hyväksy', reject: 'Hylkää', changeClass: 'Vaihda luokka', undo: 'Peru',
    decision: { accepted: 'hyväksytty', rejected: 'hylätty', added: 'lisätty', none: 'tarkastamatta' },
    withheldState: 'Pidätetty',
    withheld: {
      flood: 'ei laskettu: sen selitteen rivi osui paljon useampaan kohtaan kuin piirustukseen mahtuu; hyväksy, niin se lasketaan',
      catalog_only: 'ei laskettu: mikään selitteen rivi ei nimeä tätä luokkaa, ja sen luottamus jää alle sen, minkä tällaiset arvaukset saavuttavat oikeissa piirustuksissa; hyväksy, niin se lasketaan',
      off_scale: 'ei laskettu: paljon pienempi tai suurempi kuin sen selitteen rivin muut osumat (samannäköinen kuvio logossa, rasterissa tai suuremmassa symbolissa); hyväksy, niin se lasketaan',
    },
    reviewState: 'Tarkastus', reviewCounts: 'Tarkastettu: {a} hyväksytty · {r} hylätty · {n} lisätty',
    keys: 'Näppäimet: a hyväksy · x hylkää · c vaihda luokka · n / p seuraava / edellinen · u seuraava tarkastamaton · d piirrä laatikko (tai vaihto-veto) · f etsi samanlaiset · Esc peru',
    prevTitle: 'Edellinen tunnistus (p)', nextTitle: 'Seuraava tunnistus (n)', unreviewed: 'Tarkastamaton',
    unreviewedTitle: 'Seuraava tarkastamaton tunnistus (u)', drawBox: 'Piirrä laatikko', drawTitle: 'Piirrä laatikko (d tai vaihto-veto)',
    addAsMenu: 'Lisää symbolina …', findMore: 'Etsi samanlaiset', cancel: 'Peru', close: 'Sulje',
    pickClass: 'Valitse symboli', searchSymbols: 'Hae symboleita', noSymbols: 'Ei osumia.',
    matchesTitle: 'Samanlaiset', addAs: 'Lisää symbolina', addAllNew: 'Lisää kaikki uudet', addPicked: 'Lisää valitut',
    chooseClass: 'valitse…', searching: 'Haetaan…', searchingMore: 'Haetaan… {n} sivua jäljellä',
    searchStopped: 'Haku pysähtyi: {n} sivua jäi hakematta.',
    matchesSummary: '{t} löytyi: {n} uutta, {e} jo tunnistettu.', matchExisting: 'jo tunnistettu',
    notLikeThis: 'Ei tällainen', nearMissesTitle: 'Melkein osumat', acceptNear: 'Lisää',
    anyColour: 'Etsi kaikilla väreillä',
    tooManyExcluded: 'Enintään {n} samannäköistä voi jättää pois.',
    reasons: { missing_stroke: 'viiva puuttuu', extra_stroke: 'ylimääräinen viiva', part_of_larger_symbol: 'osa suurempaa symbolia',
      another_colour: 'eri väri', another_size: 'eri koko', another_tag: 'eri tunnus vieressä' },
    matchNew: 'uusi', score: 'pisteet {s}', added: 'Lisätty {n}.', noneNew: 'Ei uutta lisättävää.',
    noneVisible: 'Ei tunnistuksia.', allReviewed: 'Kaikki näkyvät tunnistukset on tarkastettu.',
    reviewed: '{d}: {c}.', classChanged: 'Luokaksi vaihdettu {c}.', selectFirst: 'Napsauta ensin laatikkoa.',
    drawFirst: 'Piirrä ensin laatikko (d tai vaihto-veto).', processingPages: '{d}/{t} sivua valmiina',
    processingTitle: 'Käsitellään {f}', queuedTitle: 'Jonossa: {f}', legendGlyph: 'Symboli piirustuksessa',
    tag: 'tunnus', partNumber: 'tuote', code: 'koodi', tagged: 'tunnuksin', agreement: 'täsmää',
    agree_all: 'kaikki', agree_detected_printed: 'löydetty ja painettu', agree_tagged_printed: 'tunnukset ja painettu',
    agree_detected_tagged: 'löydetty ja tunnukset', agree_none: 'ei mikään', agree_unchecked: 'ei verrattavaa',
  },
};

// Category keys of the catalog, named for people.
const categories = {
  en: {
    alarm_devices: 'Alarm devices', call_points: 'Call points', controls: 'Controls', detectors: 'Detectors',
    distribution: 'Distribution', emergency: 'Emergency lighting', heating: 'Heating', interfaces: 'Interfaces',
    lighting: 'Lighting', panels: 'Panels', sockets: 'Sockets', switches: 'Switches', telecom: 'Telecom',
  },
  fi: {
    alarm_devices: 'Hälyttimet', call_points: 'Painikkeet', controls: 'Ohjaimet', detectors: 'Ilmaisimet',
    distribution: 'Jakelu', emergency: 'Turvavalaistus', heating: 'Lämmitys', interfaces: 'Liitännät',
    lighting: 'Valaistus', panels: 'Keskukset', sockets: 'Pistorasiat', switches: 'Kytkimet', telecom: 'Tele',
  },
};

// pickLanguage returns 'fi' or 'en' for a browser's preference list.
export function pickLanguage(prefs) {
  for (const tag of prefs || []) {
    const primary = String(tag).toLowerCase().split('-')[0];
    if (primary === 'fi') return 'fi';
    if (primary === 'en') return 'en';
  }
  return 'en';
}

export const lang = pickLanguage(navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]);

// t returns the text of key in the page's language, with {name}
// placeholders replaced from args.
export function t(key, args = {}) {
  const v = key.split('.').reduce((o, k) => (o == null ? o : o[k]), texts[lang]);
  const s = v == null ? key : String(v);
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in args ? String(args[k]) : `{${k}}`));
}

// categoryName names a category key (an unknown key is shown as is).
export function categoryName(key) {
  if (key == null) return '—';
  return categories[lang][key] || key;
}

// translate fills every element marked data-i18n (text) and
// data-i18n-placeholder (placeholder) under root.
export function translate(root) {
  document.documentElement.lang = lang;
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  document.title = t('title');
}
