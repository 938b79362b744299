/**
 * Short forms of given names that do not begin the name they stand for: "Kasia" for Katarzyna,
 * "Bill" for William, "Peggy" for Margaret, "Sasha" for Aleksandr, "Paco" for Francisco. A short
 * form that begins its name ("Sam" for Samantha, "Kat" for Katarzyna) needs no table: the prefix
 * rule finds it, so such forms are left out here (and dropped if listed).
 *
 * Source: the common hypocoristic (pet) forms of given names in each language the directory's
 * names come from, written for this project as a table of facts (no list was copied); each pair
 * can be checked in Wiktionary's entry for the short form ("diminutive of ...", CC BY-SA).
 * Transliterations are listed side by side (Aleksandr, Alexander, Oleksandr). One line per name:
 * its spellings, a colon, its short forms; everything folded as user-matching folds names
 * (lower case, no diacritics: Malgorzata, Jozef, Tono for Tono with a tilde). A test checks that.
 *
 * About 1,560 pairs in 15 KB of text, parsed into a map on the first search, not at start.
 */

const ENGLISH = `
william: bill billy willy liam
robert: bob bobby bobbie robbie bert bertie
roberta: bobbie berta
richard: dick dickie rick ricky richie
margaret margarete margareta margarethe: peggy peg meg maggie marge margie madge mags greta gretchen rita daisy maisie
elizabeth elisabeth elizabet: liz lizzie lizzy beth betty betsy bess bessie libby liza lisa elsie elsa lilibet
katherine catherine kathryn katharine kathleen katharina kathrin catharine: kate katie katy kathy cathy kat kay kitty kit
james: jim jimmy jimbo jamie
john: jack jackie johnny jock
jonathan: johnny jonny
jackson: jack
michael: mike mikey mick micky mickey
thomas: tom tommy
david: dave davey davy
joseph: joe joey jody
josephine: jo josie jojo
susan susanna susannah suzanne: sue susie suzy sukie
anthony antony: tony
edward: ed eddie eddy ted teddy ned
edmund: eddie ned
henry: harry hank hal
harold: harry hal
charles: chuck charlie chas chaz chip
charlotte: charlie lottie lotte lotta
andrew: andy drew
jennifer: jenny jenn jennie
rebecca: becky becca bex
alexander alexandr aleksandr aleksander alessandro alejandro alexandre oleksandr aleksandar: sasha sascha sacha sandy xander lex alex
alexandra aleksandra alessandra alejandra oleksandra: sasha sandy sandra lexi lexie alex
nicholas nicolas: nick nicky
dominic dominik: nick
stephen: steve stevie
steven: stevie
gregory: greg
lawrence laurence: larry laurie
gerald: jerry gerry
jerome jeremiah jeremy: jerry
daniel: dan danny
matthew: matt matty
mathias matthias: matt
christopher kristopher: chris kit topher kris
christine christina kristina kristine: chris chrissy tina kris kristy
patricia: patty patsy trish tricia
patrick: paddy
nathan nathaniel: nate
benjamin benedict: ben benny benji
victoria: vicky vicki tori vic
abigail: abby gail
zachary: zach zack zak
albert: al bert bertie
alan allan: al
alfred: al alf alfie fred freddie
frederick frederic: fred freddie freddy rick
eric erik: rick ricky
ronald: ronnie
donald: donnie
douglas: dougie
kenneth: kenny
raymond: ray
timothy: timmy
samuel samantha: sammy
jacob: jake jack coby
peter: petey
philip phillip: pip
leonard: leo len lenny
theodore: ted teddy
eleanor elinor: ellie nell nellie nora
helen helena: nell nellie
ellen: nell
dorothy: dot dottie dolly
mary: molly polly mae mamie
sarah sara: sally sadie
anne ann anna: annie nan nancy nanny
barbara: barb babs barbie bobbie
deborah: debbie deb debby
sandra: sandy sandi
cynthia lucinda: cindy
virginia: ginny ginger
jacqueline: jackie jacquie
judith: judy jude
melissa: mel missy lissa
pamela: pam
priscilla: cilla
theresa teresa: terry tess tessa tracy
frances: fran fanny frankie
francis: frank frankie
gwendolyn: gwen wendy
henrietta: etta hattie
isabel isabella isabelle: izzy bella belle
jessica: jess jessie
lillian: lily lil
louise louisa: lou lulu
louis: lou lewie
madeline madeleine: maddie maddy
natalie: nat tally
olivia: liv livvy ollie
stephanie: steph stevie
valerie: val
veronica: ronnie
evelyn: evie
florence: flo flossie
gertrude: gert trudy
harriet: hattie
martha: marty mattie patsy
marjorie: margie
matilda mathilda: tilly tilda maud
nicole: nicky nikki
winifred: winnie
edith: edie
emily: em emmy millie
amelia mildred camilla: millie
ezekiel: zeke
reginald: reggie reg
rodney: rod
russell: russ
stanley: stan
walter: walt wally
wesley: wes
augustus august: gus gussie
clifford: cliff
dennis: denny
eugene: gene
gilbert: gil bert
herbert: herb bert
isaac: ike
jeffrey geoffrey: jeff geoff
joshua: josh
mitchell: mitch
montgomery: monty
oliver: ollie noll
randolph randall: randy
solomon: sol
terence terrence: terry
tobias: toby
vincent: vince vinnie
wallace: wally
antoinette: toni netty
bartholomew: bart
cornelius: neil
ignatius: iggy
amanda miranda: mandy
rosemary rosalind: rosie
violet: vi
wilhelmina: mina billie
bethany: beth
megan: meg
joanna: jo
`;

const POLISH = `
katarzyna: kasia kaska kasienka kasiunia kasiula
malgorzata: gosia goska malgosia malgoska
aleksandra: ola olka olenka
aleksander: olek oles
agnieszka: aga agusia
anna: ania anka anusia hania
barbara: basia baska
dorota: dorotka dora
elzbieta: ela elka elunia
ewa: ewka ewunia
joanna: asia joasia aska
jozef: jozek jozio
krzysztof: krzysiek krzysio
magdalena: madzia
maria: marysia marys
michal: michas misiek
piotr: piotrek piotrus
pawel: pawelek
tomasz: tomek
stanislaw: stas stasiek stach
wojciech: wojtek wojtus
zofia: zosia zoska
jan: janek jas jasiek
jakub: kuba kubus
andrzej: jedrek andrzejek
marcin: marcinek
grzegorz: grzes grzesiek
kazimierz: kazik
wladyslaw: wladek wladzio
zbigniew: zbyszek zbych
ryszard: rysiek rysio
jerzy: jurek
bartlomiej: bartek bartus
przemyslaw: przemek
miroslaw: mirek
jaroslaw: jarek
slawomir: slawek
radoslaw: radek
dariusz: darek
lech: leszek
edward: edek edzio
tadeusz: tadek tadzio
wieslaw: wiesiek
danuta: danka danusia
halina: hala halinka
jadwiga: jadzia
teresa: tereska
urszula: ula
wanda: wandzia
krystyna: krysia
renata: renia
zuzanna: zuzia
julia: julka
emilia: emilka mila
wiktor: witek
wiktoria: wika
maciej: maciek
adam: adas adamek
szymon: szymek
natalia: natalka
iwona: iwonka
monika: monia
weronika: wera
justyna: justynka
beata: beatka
grazyna: grazynka
mateusz: mati mateuszek
lukasz: lukaszek
kamil: kamilek
dawid: dawidek
kacper: kacperek
karolina: karolcia
sylwia: sylwka
ewelina: ewelinka
marta: martusia
agata: agatka
`;

const EAST_SLAVIC = `
aleksandr alexandr alexander aleksander oleksandr: sasha sashka sanya sanyok shura shurik sashko
aleksandra alexandra oleksandra: sasha sashka shura sanya
aleksei aleksey alexey alexei alexej oleksiy oleksii: alyosha alesha lyosha lyokha lesha
anastasia anastasiya anastasija: nastya nastia nastja asya stasya
anna: anya anja anyuta nyura nyusha
boris: borya
dmitry dmitri dmitriy dmytro dimitri: dima dimka mitya
ekaterina yekaterina katerina kateryna jekaterina: katya katia katja katyusha
elena yelena olena jelena: lena lenochka
evgeny yevgeny evgeniy yevgeniy evgenii yevhen: zhenya zhenia zhenja
evgenia yevgenia evgeniya yevheniia: zhenya zhenia
ivan: vanya vania vanja vanechka vanyusha
irina iryna: ira irochka irinka
konstantin kostiantyn: kostya kostia kostja
lyudmila ludmila liudmila: lyuda luda mila
maria mariya mariia: masha mashenka marusya manya
mikhail mykhailo michail: misha mischa mishka
natalia natalya nataliya natalja: natasha natascha tasha
nikolai nikolay mykola: kolya kolia kolja
olga: olya olia olja olenka lyolya
pavel pavlo: pasha pashka pavlik
pyotr petr petro: petya petia petja
sergei sergey serhiy sergej serhii: seryozha serezha seryoga
svetlana: svetik
tatiana tatyana tetyana tatjana tetiana: tanya tania tanja tanechka
vladimir volodymyr wladimir: volodya volodia vova vovka
vladislav vyacheslav yaroslav stanislav: slava
stanislav: stas
yaroslav: yarik
yuri yury yuriy yurii jurij: yura yurochka
daria darya dariya: dasha dashenka
viktor: vitya vitia
viktoria viktoriya: vika
valentina valentin: valya valia
galina halyna: galya galia
grigory grigoriy hryhoriy: grisha
andrei andrey andriy: andryusha dyusha
anatoly anatoliy: tolya tolik
arkady arkadiy: arkasha
fyodor fedor fiodor: fedya fedia
gennady gennadiy: gena
georgy georgiy: zhora gosha goga
ilya illia: ilyusha
kirill: kirusha
leonid: lyonya lenya
lev: lyova
matvei matvey: motya
nadezhda: nadya nadia nadja
roman: romka
semyon semen: syoma senya
stepan: styopa
artyom artem: tyoma tema
vasily vasiliy vasyl: vasya
veronika: nika
zinaida: zina
ksenia kseniya xenia: ksyusha
yulia yuliya julia: yulya yulka
polina: polya
lyubov: lyuba
larisa: lara
egor yegor: egorka
timofei timofey: tima
daniil: danya
oleg: olezhka
eduard: edik
vitaly vitaliy: vitalik vitya
`;

const CZECH_SLOVAK = `
jan: honza jenda
josef jozef: pepa pepik jozka
frantisek: franta fanda
jiri: jirka
michal michaela: misa
jakub: kuba
vaclav: vasek
stanislav: standa
ladislav vladimir: lada
antonin: tonda
oldrich: olda
jaroslav: jarda
barbora: bara
veronika: verca
katerina katarina: katka kaca
petr petra: peta
marie: maruska marenka
zdenek: zdenda
bohumil: bohous
`;

const SOUTH_SLAVIC = `
dorde djordje: duro djuro
jovan: jovo
milan milorad: mile
petar: pero
antun: ante tonci toni
simun: sime
josip: joso
ivan: ivica
marija: mara maja
katarina: kaca
aleksandar: aca sasa
slobodan: sloba
vladimir: vlado
branislav: brane
stjepan: stipe stipo
`;

const HUNGARIAN = `
istvan: pisti
janos: jancsi
ferenc: feri
laszlo: laci
andras: bandi
katalin: kati
erzsebet: erzsi boske
jozsef: joska
gyorgy: gyuri
mihaly: miska misi
judit: juci
sandor: sanyi
gabor: gabi
zoltan: zoli
tamas: tomi
peter: peti
ilona: ica
zsuzsanna: zsuzsi
margit: manci
`;

const GERMAN = `
josef joseph: sepp seppl jupp
johannes: hans hannes hansi jan
johann: hans hansi
jakob: jockel
joachim: jochen achim
karl carl: kalle
friedrich: fritz friedel
ludwig: lutz
heinrich: heinz heiner hinz
ursula: uschi ulla
margarete margarethe: grete gretel gretchen meta
elisabeth: liesl liese lisbeth elsbeth ilse elke lilo sissi sisi
theresia therese: resi reserl
friederike: rike frieda
stefanie stephanie: steffi
nikolaus: klaus claus
anton: toni
sebastian: wastl basti
katharina katrin: kathi kathe katja trine
susanne: sanne susi
birgit: biggi gitte
cornelia: conny nele
barbara: barbel babsi
johanna: hanne hanni
hannelore: hanne lore
helene magdalena magdalene: lene leni
ulrich ulrike: ulli uli
adolf: dolf
gerhard: gerd
bernhard: bernd
auguste: guste
christoph: stoffel
wilhelm: willi
gottfried: friedel
dietrich: dieter
leopold: poldi
matthias: hias
regina: gina
rosemarie: rosi
`;

const DUTCH = `
johannes: jan hans joop hannes
cornelis: kees cees
nicolaas: klaas
hendrik: henk
justus: joost
jacobus jacob: sjaak koos jaap
willem: wim pim
gustaaf augustinus: guus
abraham: bram
daniel: daan
maria: mies miep ria marieke
catharina: toos trijntje katrien
christina martina: tineke
henriette hendrika: jet jettie rika
elisabeth: lies liesbeth bep betje
geertruida: truus
anthonie antonius: teun ton toon
gerardus: gert geert
sebastiaan: bas
matthijs mathijs: thijs tijs
rudolf: ruud
diederik: dirk
hubertus: huub
franciscus: frans
lambertus albertus: bert
adrianus: aad
anna: anneke anke
`;

const NORDIC = `
nils: nisse
nikolaus: nils
olof olav: olle
karl: kalle
lars laurentius: lasse
per peder: pelle
jan johan johannes: janne
hans: hasse
bo: bosse
kristina christina: stina kicki
charlotte charlotta: lotta lotte
birgitta brigitta: gittan britt gitte
elisabeth: lisbeth lis elsa lisa
katariina katarina: kaisa kati kaija riina
margareta: greta
`;

const FRENCH = `
isabelle: zaza
elisabeth: babette lisette lili
marie: manon marion mimi
marguerite: margot
anne: ninon annette nanette
francoise francois: fanfan
joseph georges: jojo
andre: dede
laurent: lolo
henri: riri
philippe: fifi
louis louise: loulou
pierre: pierrot
jacques: jacquot
guillaume: guigui
gerard: gege
madeleine: mado
jean: jeannot
jeanne: jeannette
emmanuel emmanuelle: manu
frederic: fred
antoine: toine
`;

const SPANISH = `
jose: pepe pepito chepe
josefa: pepa pepita
francisco: paco paquito pancho curro cisco
francisca: paca paquita
ignacio: nacho
dolores: lola lolita loles
concepcion: concha conchita
consuelo: chelo
rosario: charo
pilar: pili
antonio: tono
enrique: quique kike
guadalupe: lupe
guillermo: memo
alberto roberto humberto: beto
eduardo: lalo
jesus: chucho chus chuy
manuel: manolo manolito
fernando: nando
adolfo rodolfo: fito
vicente: chente
ramon: moncho
refugio: cuca
mercedes: merche meche
ana: anita
isabel: chabela chavela
gregorio: goyo
jose: chema
juan: juanjo
maria teresa: maite
luis: lucho
alfonso: poncho
gonzalo: chalo
salvador: chava
`;

const PORTUGUESE = `
jose: ze zeca juca
francisco: chico
joaquim: quim
antonio: tonho toninho
beatriz: bia
augusto gustavo: guto
eduardo eduarda: dudu duda
sebastiao: tiao
ricardo: rico
roberto alberto: beto
fernando: nando
`;

const ITALIAN = `
giuseppe: beppe peppe peppino pino bepi pippo
giuseppina: pina peppina
luigi: gigi gino
giovanni: gianni nanni vanni nino
antonio: tonio toto nino
antonino: nino
francesco: cecco ciccio checco
domenico: mimmo
filippo: pippo
alessandro: sandro
alessandra: sandra
beatrice: bice
raffaella gabriella: lella
elisabetta: betta lisa
cristina concetta agostina: tina
vincenzo lorenzo: enzo
vincenzo: cenzo
salvatore: toto turi turiddu
edoardo: dado
margherita: rita
caterina: rina
`;

const GREEK = `
konstantinos: kostas kostis dinos
nikolaos: nikos
georgios: giorgos yiorgos
dimitrios: mitsos mimis takis
ioannis: giannis yannis
panagiotis: panos takis
athanasios: thanos thanasis sakis
charalampos charalambos: babis bambos
eleftherios: lefteris
emmanouil: manolis
vasileios vasilios: vasilis vassilis
stylianos: stelios
evangelos: vangelis
spyridon: spyros
apostolos: tolis
anastasia: natasa tasia
panagiota: giota yiota
aikaterini: katerina
paraskevi: voula evi
`;

const HEBREW = `
avraham abraham: avi
yosef: yossi
yitzhak isaac: itzik
david: dudi
yaakov: kobi
`;

/** Every language's lines, in one list; the order does not matter. */
const SOURCES = [ENGLISH, POLISH, EAST_SLAVIC, CZECH_SLOVAK, SOUTH_SLAVIC, HUNGARIAN, GERMAN, DUTCH, NORDIC, FRENCH, SPANISH, PORTUGUESE, ITALIAN, GREEK, HEBREW];

/** Short form -> the names it may stand for; built on the first look-up. */
let table: Map<string, readonly string[]> | undefined;

function buildTable(): Map<string, readonly string[]> {
  const built = new Map<string, string[]>();
  for (const source of SOURCES) {
    for (const line of source.split('\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const names = line.slice(0, colon).split(' ').filter(Boolean);
      for (const short of line.slice(colon + 1).split(' ').filter(Boolean)) {
        const standsFor = built.get(short) ?? [];
        // A short form that begins the name is the prefix rule's; the table adds only what it cannot find.
        for (const name of names) if (!name.startsWith(short) && !standsFor.includes(name)) standsFor.push(name);
        if (standsFor.length) built.set(short, standsFor);
      }
    }
  }
  return built;
}

/** The names a folded word may be a short form of ("kasia" -> ["katarzyna"]), or undefined. */
export function namesShortenedTo(word: string): readonly string[] | undefined {
  return (table ??= buildTable()).get(word);
}

/** Every (short form, name) pair of the table, for tests and documentation. */
export function shortFormPairs(): [string, string][] {
  return [...(table ??= buildTable())].flatMap(([short, names]) => names.map((name): [string, string] => [short, name]));
}
